/*
 * errcode.h - the error codes of requests, as named in the protocol
 * (docs/protocol.md): every refusal of every layer is one of these, with
 * its name and its HTTP status (errcode.c).
 */
#ifndef CARC_SERVER_ERRCODE_H
#define CARC_SERVER_ERRCODE_H

/* Error codes of requests, as named in the protocol. */
typedef enum srv_err {
	SE_OK = 0,
	SE_MALFORMED,      /* not JSON, or not a message of the protocol */
	SE_TOO_LARGE,      /* message or body over the size limit */
	SE_UNKNOWN_TYPE,   /* a message type the server does not know */
	SE_NOT_FOUND,      /* no such table (or path) */
	SE_BAD_TOKEN,      /* no token, or one that holds no seat here */
	SE_NOT_YOUR_TURN,  /* the token's seat is not the one to move */
	SE_STALE_TURN,     /* the move names a turn that is not the current one */
	SE_ILLEGAL,        /* the engine refuses the move */
	SE_NOT_STARTED,    /* seats are still open */
	SE_GAME_OVER,
	SE_READ_ONLY,      /* an uploaded record: nobody moves */
	SE_TABLE_FULL,     /* no open seat left */
	SE_SEAT_TAKEN,
	SE_BAD_OPTION,     /* a table option is wrong */
	SE_BAD_RECORD,     /* an uploaded record does not replay */
	SE_STORAGE,        /* the database refused the write: nothing changed */
	SE_BUSY,           /* the server holds as many tables as it may */
	SE_METHOD,         /* HTTP method not allowed on this path */
	SE_RATE_LIMITED,   /* over a per-address or total limit: try again later */
	SE_PENDING,        /* accepted; the answer follows once it is stored */
	SE_FORFEITED,      /* the seat was given up (resigned, timed out): a bot plays it */
	/* accounts (accounts.c) */
	SE_NOT_LOGGED_IN,  /* no valid session cookie */
	SE_BAD_LOGIN,      /* no such name, or the wrong password */
	SE_NAME_TAKEN,     /* an account of that name (in any case) exists */
	SE_BAD_NAME,       /* an account name that breaks the rules */
	SE_BAD_PASSWORD,   /* a password too short or too long */
	SE_CHAT_OFF,       /* spectators may not write in this table's chat */
	SE_CHAT_FULL,      /* the game has as many chat lines stored as it may */
	SE_NOT_OVER,       /* a rematch of a game that has not ended */
	/* requests from browsers (api.c) */
	SE_BAD_ORIGIN,     /* a state-changing request from a page of another site */
	SE_BAD_CONTENT_TYPE, /* a request body that is not application/json */
	SE_FORBIDDEN,      /* a monitoring path asked from where it does not answer */
	SE_NAME_LOOKALIKE, /* an account whose name looks the same (TR39 skeleton) exists */
	/* training against bots (undo.c) */
	SE_NOT_TRAINING,   /* undo where it is not allowed: rated, another person, a clock */
	SE_NOTHING_TO_UNDO, /* the seat has not made that many moves */
	/* friends (people/friends.c) */
	SE_LIMIT_REACHED,  /* a cap on friends, requests, blocks or a table's invites */
	SE_YOU_BLOCK,      /* a request or invite to an account one blocks */
	/* quick match (table/match.c) */
	SE_QUEUE_FULL,     /* the quick-match queue holds --match-max people */
	SE_TOO_MANY_TABLES, /* the person's address or account holds its --max-tables-share */
	SE_HELD_OUT,       /* a no-show held out of the quick-match queue for a while */
	SE_MATCH_PENDING,  /* a quick-match table waits for the account's first move */
	/* keeping an account (recovery.c) */
	SE_BAD_RECOVERY,   /* no such name, or not one of its unused recovery codes */
	SE_BAD_HOST,       /* a Host the server does not answer for (DNS rebinding; peers.c) */
	SE_COUNT
} srv_err;

/* The code's name in the protocol ("?" when out of range) and its HTTP
 * status (500 when out of range). */
const char *srv_err_name(srv_err e);
int srv_err_http_status(srv_err e);

#endif
