/*
 * store_fault.c - the faults a test build's store can be told to have:
 * CARC_TEST_STORE_FAULT names a file whose first word (read_only, io,
 * full, gone, or down for a store behind a connection) is the fault every
 * write meets while the file says so; "slow" is no fault but a disk that
 * stalls: every write waits a second first. Both stores ask here; in a
 * release build there is never a fault.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "store.h"

store_fault store_test_fault(const char *fault_file, int can_be_down, char *err)
{
#ifdef CARC_DEBUG_CHECK
	static const struct {
		const char *word;
		store_fault f;
	} KINDS[] = {{"read_only", STORE_FAULT_READ_ONLY}, {"io", STORE_FAULT_IO},
	             {"full", STORE_FAULT_FULL}, {"gone", STORE_FAULT_GONE},
	             {"down", STORE_FAULT_DOWN}};
	if (!fault_file)
		return STORE_FAULT_NONE;
	FILE *f = fopen(fault_file, "r");
	if (!f)
		return STORE_FAULT_NONE;
	char word[32] = "";
	if (!fgets(word, sizeof word, f))
		word[0] = 0;
	fclose(f);
	word[strcspn(word, " \r\n")] = 0;
	if (!strcmp(word, "slow")) {
		nanosleep(&(struct timespec){.tv_sec = 1}, NULL);
		return STORE_FAULT_NONE;
	}
	for (size_t i = 0; i < sizeof KINDS / sizeof KINDS[0]; i++)
		if (!strcmp(word, KINDS[i].word) && (can_be_down || KINDS[i].f != STORE_FAULT_DOWN)) {
			snprintf(err, STORE_ERR_SIZE, "injected fault '%s' (CARC_TEST_STORE_FAULT=%s)", word,
			         fault_file);
			return KINDS[i].f;
		}
	return STORE_FAULT_NONE;
#else
	(void)fault_file;
	(void)can_be_down;
	(void)err;
	return STORE_FAULT_NONE;
#endif
}
