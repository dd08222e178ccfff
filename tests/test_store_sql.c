/*
 * test_store_sql.c - the SQLite store's side of the query interface the
 * stores share (src/server/storage/store_sql.h), on a store file of its
 * own: arguments are bound by their $N name whatever order the statement
 * names them in, each kind of argument and column reads back, a fault
 * sets *bad and stops what follows. (PostgreSQL numbers $N itself; its
 * side runs under tests/pg/run.sh with the rules that use it.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store.h"
#include "store_sql.h"

static char dir[64];
static char path[96];

static int open_store(void **state)
{
	snprintf(dir, sizeof dir, "/tmp/carc-store-sql-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof path, "%s/t.db", dir);
	char err[STORE_ERR_SIZE];
	store *s = store_sqlite_open(path, 0, 1, err);
	if (!s)
		fprintf(stderr, "%s\n", err);
	*state = s;
	return s ? 0 : -1;
}

static int close_store(void **state)
{
	store *s = *state;
	s->ops->close(s);
	char f[128];
	const char *ends[] = {"", "-wal", "-shm"};
	for (int i = 0; i < 3; i++) {
		snprintf(f, sizeof f, "%s%s", path, ends[i]);
		unlink(f);
	}
	rmdir(dir);
	return 0;
}

/* SQLite numbers "$2" first in "b=$2 AND a=$1": bound by name, a=1, b=2. */
static void out_of_order(void **state)
{
	store *s = *state;
	char err[STORE_ERR_SIZE] = "";
	int bad = 0;
	const char *sql = "SELECT count(*) FROM (SELECT 1 AS a, 2 AS b) WHERE b=$2 AND a=$1";
	assert_int_equal(sql_one(s, sql, SQL_A2(1, 2), -1, &bad, err), 1);
	assert_int_equal(sql_one(s, sql, SQL_A2(2, 1), -1, &bad, err), 0);
	assert_int_equal(sql_one(s, "SELECT $2 * 10 + $1", SQL_A2(1, 2), -1, &bad, err), 21);
	/* a name used twice is one argument; one the statement does not name
	 * is left out */
	assert_int_equal(sql_one(s, "SELECT $3 + $3", SQL_A3(5, 6, 7), -1, &bad, err), 14);
	assert_int_equal(bad, 0);
}

/* The same on a table, through a write: INSERT names b before a. */
static void out_of_order_write(void **state)
{
	store *s = *state;
	char err[STORE_ERR_SIZE] = "";
	int bad = 0;
	assert_int_equal(sql_begin(s, err), 0);
	sql_run(s, "CREATE TEMP TABLE t (a INTEGER, b TEXT)", NULL, &bad, err);
	assert_int_equal(sql_run(s, "INSERT INTO t (b, a) VALUES ($2, $1)",
	                         SQL_ARGS(SQL_I(7), SQL_S("seven")), &bad, err), 1);
	assert_int_equal(sql_one(s, "SELECT a FROM t WHERE b=$2 AND a=$1",
	                         SQL_ARGS(SQL_I(7), SQL_S("seven")), -1, &bad, err), 7);
	assert_int_equal(sql_run(s, "UPDATE t SET a=$1 WHERE b=$2", SQL_ARGS(SQL_I(8), SQL_S("none")),
	                         &bad, err), 0);
	sql_run(s, "DROP TABLE t", NULL, &bad, err);
	assert_int_equal(bad, 0);
	assert_int_equal(sql_commit(s, err), 0);
}

struct got {
	int n;
	int64_t i;
	double f;
	char t[8];
};

static int got_row(void *ctx, const store_row *r)
{
	struct got *g = ctx;
	g->n++;
	g->i = row_i64(r, 0);
	g->f = row_f64(r, 1);
	row_text(r, 2, g->t, sizeof g->t);
	return g->n == 2; /* stops at the second row */
}

static void kinds_and_rows(void **state)
{
	store *s = *state;
	char err[STORE_ERR_SIZE] = "";
	int bad = 0;
	struct got g = {0, 0, 0, ""};
	assert_int_equal(sql_rows(s, "SELECT $1, $2, $3", SQL_ARGS(SQL_I(-5), SQL_F(1.25), SQL_S("abc")),
	                          got_row, &g, &bad, err), 1);
	assert_int_equal(g.i, -5);
	assert_true(g.f == 1.25);
	assert_string_equal(g.t, "abc");
	/* a NULL text is "", a NULL column reads 0 and "" */
	assert_int_equal(sql_one(s, "SELECT length($1) + ($1 IS NULL)", SQL_ARGS(SQL_S(NULL)), -1,
	                         &bad, err), 0);
	memset(&g, 0, sizeof g);
	assert_int_equal(sql_rows(s, "SELECT NULL, NULL, NULL", NULL, got_row, &g, &bad, err), 1);
	assert_int_equal(g.i, 0);
	assert_string_equal(g.t, "");
	/* no row, or a NULL: the default */
	assert_int_equal(sql_one(s, "SELECT 1 WHERE 0", NULL, 42, &bad, err), 42);
	assert_int_equal(sql_one(s, "SELECT NULL", NULL, 43, &bad, err), 43);
	/* fn stops the rows: the row it stopped at counts */
	memset(&g, 0, sizeof g);
	assert_int_equal(sql_rows(s, "SELECT 1, 0.5, 'a' UNION ALL SELECT 2, 1.5, 'b'"
	                             " UNION ALL SELECT 3, 2.5, 'c'", NULL, got_row, &g, &bad, err), 2);
	assert_int_equal(g.i, 2);
	assert_string_equal(g.t, "b");
	assert_int_equal(bad, 0);
}

static void faults(void **state)
{
	store *s = *state;
	char err[STORE_ERR_SIZE] = "";
	int bad = 0;
	assert_int_equal(sql_one(s, "SELECT nothing FROM nowhere", NULL, 0, &bad, err), -1);
	assert_int_equal(bad, 1);
	assert_non_null(strstr(err, "nowhere"));
	assert_int_not_equal(s->ops->last_fault(s), STORE_FAULT_NONE);
	/* with *bad set nothing runs */
	err[0] = 0;
	assert_int_equal(sql_one(s, "SELECT 1", NULL, 0, &bad, err), -1);
	assert_int_equal(sql_run(s, "SELECT 1", NULL, &bad, err), -1);
	assert_string_equal(err, "");
	/* a read clears the last fault */
	assert_int_equal(sql_ready(s, err), 0);
	assert_int_equal(s->ops->last_fault(s), STORE_FAULT_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(out_of_order),
		cmocka_unit_test(out_of_order_write),
		cmocka_unit_test(kinds_and_rows),
		cmocka_unit_test(faults),
	};
	return cmocka_run_group_tests(tests, open_store, close_store);
}
