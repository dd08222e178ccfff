/*
 * fuzz_ws.c - libFuzzer target: the WebSocket messages (api_ws_open,
 * api_ws_message, api_ws_close) of one client at a real table
 * (fuzz_server.h).
 *
 * Input: one connection's life.
 *   byte 0    the table (slot) to connect to when the path is empty
 *   then      path \n token \n cookie \n message \n message ...
 *             path "" is "/ws/<the slot's id>"; up to MAX_MSGS messages,
 *             one a line, each handed over whole as one text message
 * Every field goes through fz_expand first, so a line such as
 *   {"type":"move","token":"$P0",$M00,"turn":$N0}
 * is a legal move for whoever is to move at the table being played.
 * Each message's storage work is finished before the next (as the loop
 * would have done between two frames), then the client leaves.
 *
 * What must hold, besides no crash, leak or sanitizer report: every
 * message to the client is a JSON object with a type and errors carry a
 * known code; each message of the client gets an answer; the connection
 * leaves its table (fuzz_server.c checks).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_server.h"

#define MAX_MSGS 32

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_init();
	return 0;
}

/* The next line of [*p, end) expanded into out; moves *p past it. */
static void next_line(const char **p, const char *end, srv_sb *out)
{
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	const char *stop = nl ? nl : end;
	fz_expand(*p, (size_t)(stop - *p), out);
	*p = stop < end ? stop + 1 : end;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	int slot = (data[0] >= '0' && data[0] <= '9' ? data[0] - '0' : data[0]) % FZ_NSLOTS;
	const char *p = (const char *)data + 1, *end = (const char *)data + size;
	srv_sb path, token, cookie;
	next_line(&p, end, &path);
	next_line(&p, end, &token);
	next_line(&p, end, &cookie);
	if (!path.len) {
		sb_adds(&path, "/ws/");
		sb_adds(&path, fz_id(slot));
	}
	srv_conn *c = fz_ws_open(path.s, token.s, cookie.s);
	for (int i = 0; i < MAX_MSGS && p < end; i++) {
		srv_sb msg;
		next_line(&p, end, &msg);
		fz_ws_message(c, msg.s, msg.len);
		sb_free(&msg);
	}
	fz_ws_close(c);
	sb_free(&path);
	sb_free(&token);
	sb_free(&cookie);
	fz_after_input();
	return 0;
}
