/*
 * skeleton.h - account names that look alike: the confusable skeletons of
 * Unicode TR39 (ICU's uspoof), folded to the case-insensitive names carc
 * uses (docs/server.md, "Accounts").
 *
 * An account name has two forms, and no two accounts share a form:
 *   form 0: skeleton(name) as typed, so "AIice" (capital I) meets "Alice";
 *   form 1: fold(skeleton(fold(name))), so "ALICE" meets "Alıce" (dotless i)
 *           through their small letters.
 * The forms go into one unique column (account_skeletons.skel), so a form
 * of the new name meeting either form of an old name refuses it.
 */
#ifndef CARC_SERVER_SKELETON_H
#define CARC_SERVER_SKELETON_H

#include <stddef.h>

#define SKEL_SIZE 256 /* bytes, with the NUL: a 24-letter name's skeleton fits */

/* Both forms of a name accounts_name_key accepted: 0, or -1 with err set
 * (ICU failed or a form is longer than SKEL_SIZE). out[1] is "" when it
 * equals out[0]; out has two rows. Thread-safe after skeleton_start. */
int skeleton_forms(const char *name, char (*out)[SKEL_SIZE], char *err, size_t errsize);

/* Opens ICU's spoof checker once: 0, or -1 with err set. */
int skeleton_start(char *err, size_t errsize);
void skeleton_stop(void);

#endif
