/*
 * chat.h - the chat at each table, and the per-table state the rematch
 * keeps (rematch.h). docs/protocol.md, "Chat" and "Rematch".
 *
 * A chat line is plain text (never markup: clients show it as text) of
 * 1..cfg->chat_len Unicode code points without control characters, or a
 * quick phrase's id (chat_phrase_ok) that each reader sees in their own
 * language. Seat holders always may write; spectators only at a table
 * with the option "spectator_chat" (default off); everyone at the table
 * reads. Each line costs the address's request budget (api_ws.c) and one of
 * the connection's and the seat's own chat allowance (--chat-rate,
 * --chat-burst). A game keeps at most cfg->chat_max lines; spectators'
 * lines have a budget of their own so that the players can always write:
 * at most --chat-spectator-share percent of chat_max, and
 * --chat-spectator-rate lines a minute per address at one table, however
 * many connections it opens.
 *
 * A line is stored (writer.c) before it is sent to the table, like a
 * move; it is numbered per game (n = 0, 1, ...) and listed with
 * GET /api/tables/<id>/chat, also after a restart and in the replay.
 * Everything here runs on the event-loop thread.
 */
#ifndef CARC_SERVER_CHAT_H
#define CARC_SERVER_CHAT_H

#include <jansson.h>

#include "tables.h"

/* The state of a table kept by chat.c and rematch.c (owned by the table,
 * made when first needed, freed with it). */
/* Addresses whose spectators' rate one table remembers; one more takes
 * the place of the one that wrote longest ago (its bucket is the fullest) */
#define CHAT_SPECT_ADDRS 16

typedef struct chat_table {
	int next_n;                        /* lines stored or being stored (the cap's
	                                    * count); -1: not read yet */
	int shown_n;                       /* the next line to send to the table's
	                                    * clients, in order; -1: not read yet */
	double seat_tokens[CARC_MAX_PLAYERS];
	int64_t seat_us[CARC_MAX_PLAYERS];
	/* spectators' own budget: their stored lines (spect_n, counted up to
	 * line spect_upto; -1: not read yet) and those being stored, against
	 * --chat-spectator-share of --chat-max, and a bucket per address
	 * (--chat-spectator-rate) over all of its connections */
	int spect_n, spect_upto, spect_pending;
	struct {
		char key[LIM_KEY_SIZE];        /* "": free */
		double tokens;
		int64_t at_us;
	} spect_rate[CHAT_SPECT_ADDRS];
	/* rematch.c: the rematch of a finished game (""), read from the store once */
	char rematch[STORE_ID_SIZE];
	int rematch_known;
	char rematch_of[STORE_ID_SIZE];    /* a rematch made since the start: its old table */
	/* a rematch table: what each reserved seat waits for */
	char reserved[CARC_MAX_PLAYERS][STORE_TOKEN_HASH_SIZE];
	int creating;                      /* its creation is being stored */
	srv_table *old;                    /* meanwhile: its old table, held in memory */
	int nwait;                         /* claims that came while it was */
	struct {
		int seat;
		uint64_t conn;
		int http;
		json_t *ref;                   /* owned */
	} wait[CARC_MAX_PLAYERS];
} chat_table;

/* The module's configuration and the loop's reading handle, borrowed for
 * the server's life. */
void chat_start(const srv_config *cfg, store *reader);
/* The table's chat state, made when missing (never NULL). */
chat_table *chat_of(srv_table *t);
/* Frees t->chat (tables.c, when the table goes). */
void chat_free(srv_table *t);
/* Adds what the table summary shows of chat and rematch to o (the
 * tables_info object): "rematch": id once the game has one, and
 * "reserved": true on seats kept for a rematch's players. */
void chat_info(const srv_table *t, json_t *o);

/* The table's state with its rematch read from the store (once) when it
 * has ended. */
chat_table *chat_rematch_of(srv_table *t);
/* Several processes: reads the rematch of a finished table again (another
 * process may have made it); 1 when one is known now that was not. */
int chat_rematch_refresh(srv_table *t);
/* Sends the table's clients every stored line they have not been sent,
 * in the order of their numbers (lines from other processes, or from
 * this one when another's came first). */
void chat_catch_up(srv_table *t);
/* Another process announced line n: when this process has not read the
 * table's chat yet, the lines from n on are the ones its clients have not
 * been sent (the earlier ones were read with the table's chat). */
void chat_heard_of(srv_table *t, int n);
/* A client is at the table: from now on every new line is sent to the
 * table's clients in order (the earlier ones they read with the chat). */
void chat_track(srv_table *t);

/* 1 when `id` is a quick phrase ("gg", "wp", "thanks", ...). */
int chat_phrase_ok(const char *id);
/* The known phrases as a JSON array text (static). */
const char *chat_phrases(void);

/* A "chat" message from client c at table t, on the connection with
 * serial `conn`. SE_PENDING (the line is sent to the table once stored; an
 * error after that goes to that connection alone), or an error with
 * nothing changed; *wait_s is set for SE_RATE_LIMITED. addr: the client's
 * address (a spectator's rate is kept per address). */
srv_err chat_say(srv_table *t, srv_client *c, uint64_t conn, const char *addr, const json_t *msg,
                 char *err,
                 size_t errsize, int *wait_s);
/* The table's chat lines, oldest first: {"chat": [...], "spectator_chat":
 * bool, "max": n, "len": n, "phrases": [...]}. NULL with *code and err set
 * when the store cannot be read. */
json_t *chat_list(srv_table *t, int64_t reader, srv_err *code, char *err, size_t errsize);

#endif
