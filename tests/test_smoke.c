/* test_smoke.c - a whole random game runs, the state check holds. */
#include <stdlib.h>

#include "support.h"

static void random_game_checks(void **state)
{
	(void)state;
	carc_rules r = t_rules(2);
	carc_game *g = malloc(sizeof *g);
	carc_move mv[CARC_MAX_MOVES];
	char err[CARC_ERRMSG_SIZE];
	assert_int_equal(carc_game_init(g, &r, 7, NULL, 0, err), CARC_OK);
	int turns = 0;
	while (!carc_game_over(g)) {
		int n = carc_legal_moves(g, mv, CARC_MAX_MOVES);
		assert_true(n > 0);
		assert_int_equal(carc_apply(g, mv[(unsigned)turns * 7919u % (unsigned)n], NULL, err), CARC_OK);
		t_check(g);
		turns++;
	}
	assert_true(turns >= 71);
	free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(random_game_checks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
