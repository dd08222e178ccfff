/*
 * fuzz_http.c - libFuzzer target: the HTTP API (api_http) as net*.c hands
 * it a request, against real tables and a real store (fuzz_server.h).
 *
 * Input: one request.
 *   byte 0    the method: G GET, P POST, U PUT, D DELETE, H HEAD,
 *             O OPTIONS, A PATCH, C CONNECT; any other byte by its value
 *   byte 1    flags: bit 0 the body is over the size limit (net*.c saw too
 *             much), bits 1-2 the client's address (one of four)
 *   then      path \n query \n token \n cookie \n body (the rest, newlines
 *             included); fields left out are empty
 * Every field goes through fz_expand first, so "$I0" is the id of the
 * table being played and "$P0" the token of its seat to move (see there).
 *
 * What must hold, besides no crash, leak or sanitizer report: every answer
 * is JSON with a known error code when it is an error, headers carry no
 * control character, a request that waits for the store is answered once
 * (fuzz_server.c checks all that).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_server.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_init();
	return 0;
}

static int method_of(uint8_t b)
{
	switch (b) {
	case 'G': return LWSHUMETH_GET;
	case 'P': return LWSHUMETH_POST;
	case 'U': return LWSHUMETH_PUT;
	case 'D': return LWSHUMETH_DELETE;
	case 'H': return LWSHUMETH_HEAD;
	case 'O': return LWSHUMETH_OPTIONS;
	case 'A': return LWSHUMETH_PATCH;
	case 'C': return LWSHUMETH_CONNECT;
	default: return b % (LWSHUMETH_HEAD + 1);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const ADDRS[4] = {"127.0.0.1", "10.0.0.2", "::1", ""};
	if (size < 2)
		return 0;
	int method = method_of(data[0]);
	int too_large = data[1] & 1;
	const char *addr = ADDRS[(data[1] >> 1) & 3];
	const char *p = (const char *)data + 2, *end = (const char *)data + size;
	/* path, query, token, cookie: up to a newline each; the body is the rest */
	srv_sb field[4];
	for (int i = 0; i < 4; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *stop = nl ? nl : end;
		fz_expand(p, (size_t)(stop - p), &field[i]);
		p = stop < end ? stop + 1 : end;
	}
	srv_sb body;
	fz_expand(p, (size_t)(end - p), &body);
	fz_http(method, field[0].s, field[1].s, field[2].s, field[3].s, body.len ? body.s : NULL,
	        body.len, too_large, addr, NULL);
	for (int i = 0; i < 4; i++)
		sb_free(&field[i]);
	sb_free(&body);
	fz_after_input();
	return 0;
}
