/*
 * errcode.c - the names and HTTP statuses of the error codes (errcode.h).
 */
#include "errcode.h"

static const struct {
	const char *name;
	int http;
} ERRS[SE_COUNT] = {
	[SE_OK] = {"ok", 200},
	[SE_MALFORMED] = {"malformed", 400},
	[SE_TOO_LARGE] = {"too_large", 413},
	[SE_UNKNOWN_TYPE] = {"unknown_type", 400},
	[SE_NOT_FOUND] = {"not_found", 404},
	[SE_BAD_TOKEN] = {"bad_token", 403},
	[SE_NOT_YOUR_TURN] = {"not_your_turn", 409},
	[SE_STALE_TURN] = {"stale_turn", 409},
	[SE_ILLEGAL] = {"illegal_move", 422},
	[SE_NOT_STARTED] = {"not_started", 409},
	[SE_GAME_OVER] = {"game_over", 409},
	[SE_READ_ONLY] = {"read_only", 409},
	[SE_TABLE_FULL] = {"table_full", 409},
	[SE_SEAT_TAKEN] = {"seat_taken", 409},
	[SE_BAD_OPTION] = {"bad_option", 400},
	[SE_BAD_RECORD] = {"bad_record", 422},
	[SE_STORAGE] = {"storage", 503},
	[SE_BUSY] = {"busy", 503},
	[SE_METHOD] = {"method_not_allowed", 405},
	[SE_RATE_LIMITED] = {"rate_limited", 429},
	[SE_PENDING] = {"pending", 202},
	[SE_FORFEITED] = {"forfeited", 409},
	[SE_NOT_LOGGED_IN] = {"not_logged_in", 401},
	[SE_BAD_LOGIN] = {"bad_login", 401},
	[SE_NAME_TAKEN] = {"name_taken", 409},
	[SE_BAD_NAME] = {"bad_name", 400},
	[SE_BAD_PASSWORD] = {"bad_password", 400},
	[SE_CHAT_OFF] = {"chat_off", 403},
	[SE_CHAT_FULL] = {"chat_full", 409},
	[SE_NOT_OVER] = {"not_over", 409},
	[SE_BAD_ORIGIN] = {"bad_origin", 403},
	[SE_BAD_CONTENT_TYPE] = {"bad_content_type", 415},
	[SE_FORBIDDEN] = {"forbidden", 403},
	[SE_NAME_LOOKALIKE] = {"name_lookalike", 409},
	[SE_NOT_TRAINING] = {"not_training", 409},
	[SE_NOTHING_TO_UNDO] = {"nothing_to_undo", 409},
	[SE_LIMIT_REACHED] = {"limit_reached", 409},
	[SE_YOU_BLOCK] = {"you_block", 409},
	[SE_QUEUE_FULL] = {"queue_full", 503},
	[SE_TOO_MANY_TABLES] = {"too_many_tables", 429},
	[SE_HELD_OUT] = {"held_out", 429},
	[SE_MATCH_PENDING] = {"match_pending", 409},
	[SE_BAD_RECOVERY] = {"bad_recovery", 401},
	[SE_BAD_HOST] = {"bad_host", 421},
};

const char *srv_err_name(srv_err e) { return e < SE_COUNT ? ERRS[e].name : "?"; }
int srv_err_http_status(srv_err e) { return e < SE_COUNT ? ERRS[e].http : 500; }
