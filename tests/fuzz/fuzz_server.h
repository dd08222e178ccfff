/*
 * fuzz_server.h - the server without its transport, for the libFuzzer
 * targets of the HTTP API (fuzz_http.c) and of the WebSocket messages
 * (fuzz_ws.c).
 *
 * The harness runs the real tables, writer (storage thread, SQLite in a
 * temporary folder) and the API (api/) on the fuzzer's thread, which plays
 * the event loop's part. net.c stays linked (other modules need its symbols), but the
 * calls the other modules make into it are redirected to the harness by
 * the linker (-Wl,--wrap=net_..., see the Makefile): answers and messages
 * land here, where each one is checked against the protocol (valid JSON,
 * a known error code, no control characters in headers, every request that
 * waits for the store answered exactly once, every WebSocket message
 * answered, nothing changed by a refused request or message, every table
 * made coming back after a restart). A violation aborts, which libFuzzer
 * reports like a crash.
 *
 * Fixed tables ("slots") are prepared at start; inputs name them through
 * placeholders that fz_expand() replaces with real ids, tokens and legal
 * moves (see there), so that the fuzzer reaches moves, joins and their
 * errors instead of "no such table". A slot whose table the inputs changed
 * (a game played out, an open table filled) is made again; when the server
 * reaches its table limit, or after many inputs, everything starts afresh
 * with an empty database: memory and disk stay bounded.
 *
 * No lws event loop runs and no bot thread: the tables' timers (bot pauses,
 * roster messages) never fire, so nothing depends on time.
 */
#ifndef CARC_FUZZ_SERVER_H
#define CARC_FUZZ_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "api.h"
#include "net.h"
#include "server.h"
#include "tables.h"

enum {
	FZ_PLAY,   /* 2 humans, being played; both tokens known */
	FZ_OPEN,   /* 3 seats, the creator's taken (token known), 2 open */
	FZ_EMPTY,  /* 2 seats, both open */
	FZ_OVER,   /* a finished game (short custom pile), 2 humans */
	FZ_VIEW,   /* an uploaded record (FZ_OVER's) */
	FZ_BOT,    /* seat 0 a human (token known), seat 1 a bot that never moves */
	FZ_NSLOTS
};

extern srv_config fz_cfg;

/* Once, before the first input (LLVMFuzzerInitialize). */
void fz_init(void);
/* After each input: runs the storage thread's completions, checks the
 * slots and remakes or resets what the input used up. */
void fz_after_input(void);
/* Runs the storage thread's completions until no job is left. */
void fz_settle(void);

/* The slot's table (NULL if it is gone), id and seat tokens ("" unknown). */
srv_table *fz_table(int slot);
const char *fz_id(int slot);
const char *fz_token(int slot, int seat);

/* Copies in[0..n) to out, replacing placeholders (a selector byte b picks
 * slot b % FZ_NSLOTS when it is not a digit, digit d slot d % FZ_NSLOTS):
 *   $I<s>     the slot's table id
 *   $K<s><n>  the token of seat n at the slot ("" when unknown)
 *   $P<s>     the token of the seat to move at the slot
 *   $N<s>     the slot's current turn
 *   $M<s><k>  the k-th legal move there as JSON members: "x":..,"y":..,
 *             "rot":..,"meeple":... (or "discard":true)
 *   $R<s>     the slot's game record (JSON text)
 *   $$        a dollar
 * out is NUL-terminated (it may hold NULs of the input too). */
void fz_expand(const char *in, size_t n, srv_sb *out);

/* A request as net.c would hand it over (fields truncated to net.c's
 * buffers). Checks the answer, waiting for the store when it must; returns
 * the status and, if body_out is not NULL, the body (malloc'd, the caller
 * frees it). */
int fz_http(int method, const char *path, const char *query, const char *token,
            const char *cookie, const char *body, size_t body_len, int too_large,
            const char *addr, char **body_out);

/* The WebSocket connection of the harness: a srv_conn that net_conn_find
 * knows while it is open. Messages to it are checked and dropped. */
srv_conn *fz_ws_open(const char *path, const char *token, const char *cookie);
void fz_ws_message(srv_conn *c, const char *text, size_t len);
void fz_ws_close(srv_conn *c);

/* Aborts with a message (a finding). */
void fz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
