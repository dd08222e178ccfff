/*
 * windows.h - which browser window holds a seat's controls (issue 22,
 * defect 10; docs/protocol.md "Windows of one seat").
 *
 * One person may have a seat open in several windows: two tabs, a phone
 * and a computer logged in to one account. The newest window to open the
 * seat takes its controls; every other window at the seat is told
 * ("seat_window" with the holder's id) and shows that the seat is open in
 * another window, with a button that takes the controls back. A window is
 * a random id of WINDOW_ID_LEN hex digits the page makes when it loads; it
 * says "take" when it opens the table (and when its button is pressed),
 * and only asks who holds the seat when it reconnects, so that a window
 * that lost its connection for a moment does not take the controls from
 * the one in use.
 *
 * Several processes: the holder is stored with the seat (store.h
 * window_set, window_get) and announced (STORE_NOTIFY_WINDOW); a process
 * that hears of it reads the holder and tells its clients at that seat. A
 * process knows a seat's holder once it has read it (win_known) and
 * forgets it when notifications may have been missed.
 *
 * It is guidance, not a lock: a move with the seat's token counts from
 * any window (the REST API, bots of one's own, a window whose news came
 * late). Each seat may take the controls WINDOW_TAKE_BURST times at once
 * and WINDOW_TAKE_PER_S a second after that (per process), besides the
 * address's --rate-requests budget that every message counts against.
 * Everything here runs on the event-loop thread.
 */
#ifndef CARC_SERVER_WINDOWS_H
#define CARC_SERVER_WINDOWS_H

#include <stddef.h>
#include <stdint.h>

#include "tables.h"

#define WINDOW_ID_LEN 16      /* hex digits (STORE_WINDOW_SIZE - 1) */
#define WINDOW_TAKE_BURST 5   /* takes of one seat at once ... */
#define WINDOW_TAKE_PER_S 0.5 /* ... and after that, a second */

/* A client at seat c->seat says it is window `window`: it takes the
 * controls (take), or asks who holds them. Every client at the table hears
 * "seat_window" when the holder changes; the asker hears it at once (conn:
 * its connection). SE_OK, or an error with nothing changed (*wait_s for
 * SE_RATE_LIMITED). */
srv_err windows_hello(srv_table *t, const srv_client *c, uint64_t conn, const char *window,
                      int take, char *err, size_t errsize, int *wait_s);
/* Another process's window took seat `seat` (STORE_NOTIFY_WINDOW): read
 * from the store and told to the clients here when it changed. */
void windows_heard(srv_table *t, int seat);
/* Notifications may have been missed: every holder is read again. */
void windows_forget(srv_table *t);

#endif
