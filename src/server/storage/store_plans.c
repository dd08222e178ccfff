/*
 * store_plans.c - the explain op of both stores (store.h): the plans of
 * the list queries the server runs for a client, as the database would
 * run them, so that a test (tests/test_store_plans.c) can hold every one
 * of them to the rule of docs/server.md, "Reads that cost what the asker
 * owns": driven by an index on the asker's own rows, never a scan of a
 * table that grows with the site.
 *
 * The statements explained are the ones the server runs, not copies: a
 * store hands its own (its SQL[] texts) and this file adds the lists
 * written once for both stores (store_friends.c, store_keep.c) from the
 * same constants their functions run. The arguments are those an asker's
 * request gives: the asker's account, the limits the callers pass, the
 * cursors at their start.
 */
#include <stdio.h>

#include "store.h"
#include "store_sql.h"

struct plan_ctx {
	store_plan_fn fn;
	void *ctx;
	const char *name;
};

static void one_line(void *ctx, const char *line)
{
	struct plan_ctx *p = ctx;
	p->fn(p->ctx, p->name, line);
}

/* Explains one query, and on PostgreSQL the generic plan of a prepared one
 * as a query of its own ("NAME (generic plan)"). */
static int explain_one(store *s, const store_list_sql *q, store_plan_fn fn, void *ctx, int *bad,
                       char *err)
{
	struct plan_ctx p = {fn, ctx, q->name};
	if (*bad || s->sql->plan(s, q->sql, q->args, 0, one_line, &p, bad, err))
		return -1;
	if (!s->sql->pg || !q->prepared)
		return 0;
	char name[96];
	snprintf(name, sizeof name, "%s (generic plan)", q->name);
	p.name = name;
	return s->sql->plan(s, q->sql, q->args, 1, one_line, &p, bad, err);
}

int store_explain(store *s, const store_list_sql *own, int nown, int64_t account,
                  store_plan_fn fn, void *ctx, char *err)
{
	if (sql_ready(s, err))
		return -1;
	/* the limits people/friends.c and recovery.c pass at the defaults */
	const store_list_sql shared[] = {
		{"friends", store_social_list_sql(s, STORE_LIST_FRIENDS), SQL_A2(account, 200), 0},
		{"friend requests in", store_social_list_sql(s, STORE_LIST_INCOMING),
		 SQL_A2(account, 100), 0},
		{"friend requests out", store_social_list_sql(s, STORE_LIST_OUTGOING),
		 SQL_A2(account, 50), 0},
		{"blocked", store_social_list_sql(s, STORE_LIST_BLOCKED), SQL_A2(account, 500), 0},
		{"invites", STORE_INVITES_SQL, SQL_A2(account, 50), 0},
		{"records", STORE_OVER_IDS_SQL, SQL_ARGS(SQL_I(account), SQL_S(""), SQL_I(101)), 0},
	};
	int bad = 0;
	for (int i = 0; i < nown; i++)
		explain_one(s, &own[i], fn, ctx, &bad, err);
	for (size_t i = 0; i < sizeof shared / sizeof shared[0]; i++)
		explain_one(s, &shared[i], fn, ctx, &bad, err);
	return bad ? -1 : 0;
}
