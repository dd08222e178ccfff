/*
 * api_keep.c - what keeping an account (people/recovery.c) needs from the
 * tables, handed down as its hooks: giving up a deleted account's seats
 * in games being played, loading the anonymised seats of the tables this
 * process holds, and a finished game's record for the download.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "recovery.h"
#include "tables.h"

static int keep_resign(const char *id, int seat, const char *token)
{
	srv_table *t = tables_find(id);
	if (!t) {
		srv_error("table=%s not loaded: seat %d of a deleted account stays as it is", id, seat);
		return -1;
	}
	char err[256];
	srv_origin o = {0, 0, NULL, 0}; /* nobody waits for the answer */
	srv_err e = tables_resign(t, token, &o, err, sizeof err);
	if (e != SE_PENDING) {
		srv_event("table=%s seat=%d event=resign_refused (account deleted): %s", id, seat, err);
		return -1;
	}
	return 0;
}

static char *keep_record(const char *id)
{
	srv_table *t = tables_find(id);
	return t && t->status == STORE_OVER ? tables_record_text(t) : NULL;
}

static const keep_hooks hooks = {
	.http_answer = net_http_answer,
	.resign = keep_resign,
	.refresh = tables_refresh,
	.record = keep_record,
};

const keep_hooks *api_keep_hooks(void)
{
	return &hooks;
}
