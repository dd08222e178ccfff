/*
 * skeleton.c - the confusable skeletons of account names (skeleton.h),
 * with ICU's spoof checker (uspoof_getSkeletonUTF8, Unicode TR39) and
 * ICU's full case folding (u_strFoldCase).
 */
#include <stdio.h>
#include <string.h>
#include <unicode/uspoof.h>
#include <unicode/ustring.h>

#include "skeleton.h"

static USpoofChecker *checker;

int skeleton_start(char *err, size_t errsize)
{
	if (checker)
		return 0;
	UErrorCode st = U_ZERO_ERROR;
	checker = uspoof_open(&st);
	if (U_FAILURE(st)) {
		snprintf(err, errsize, "ICU's spoof checker cannot start: %s", u_errorName(st));
		checker = NULL;
		return -1;
	}
	return 0;
}

void skeleton_stop(void)
{
	if (checker)
		uspoof_close(checker);
	checker = NULL;
}

/* UTF-8 case folding through UTF-16: 0, or -1 when it does not fit. */
static int fold_utf8(const char *in, char *out, size_t size, UErrorCode *st)
{
	UChar a[SKEL_SIZE], b[SKEL_SIZE];
	int32_t n = 0, m, k;
	u_strFromUTF8(a, SKEL_SIZE, &n, in, -1, st);
	if (U_FAILURE(*st) || n >= SKEL_SIZE)
		return -1;
	m = u_strFoldCase(b, SKEL_SIZE, a, n, U_FOLD_CASE_DEFAULT, st);
	if (U_FAILURE(*st) || m >= SKEL_SIZE)
		return -1;
	u_strToUTF8(out, (int32_t)size, &k, b, m, st);
	if (U_FAILURE(*st) || (size_t)k >= size)
		return -1;
	out[k] = 0;
	return 0;
}

static int skel_utf8(const char *in, char *out, size_t size, UErrorCode *st)
{
	int32_t k = uspoof_getSkeletonUTF8(checker, 0, in, -1, out, (int32_t)size, st);
	if (U_FAILURE(*st) || k < 0 || (size_t)k >= size)
		return -1;
	out[k] = 0;
	return 0;
}

int skeleton_forms(const char *name, char (*out)[SKEL_SIZE], char *err, size_t errsize)
{
	char t[SKEL_SIZE], u[SKEL_SIZE];
	UErrorCode st = U_ZERO_ERROR;
	out[0][0] = out[1][0] = 0;
	if (!checker) {
		snprintf(err, errsize, "the spoof checker is not started");
		return -1;
	}
	if (skel_utf8(name, out[0], SKEL_SIZE, &st) || fold_utf8(name, t, sizeof t, &st) ||
	    skel_utf8(t, u, sizeof u, &st) || fold_utf8(u, out[1], SKEL_SIZE, &st)) {
		snprintf(err, errsize, "a name's skeleton: %s",
		         U_FAILURE(st) ? u_errorName(st) : "longer than it may be");
		out[0][0] = out[1][0] = 0;
		return -1;
	}
	if (!strcmp(out[0], out[1]))
		out[1][0] = 0;
	return 0;
}
