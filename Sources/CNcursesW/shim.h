#ifndef QUOTAWATCH_CNCURSESW_SHIM_H
#define QUOTAWATCH_CNCURSESW_SHIM_H
// ncurses' wide-character build from Debian's libncurses-dev: the `watch` view and the
// interactive `clean` selection. The wide entry points (add_wch, wcwidth-aware layout) are
// declared only under _XOPEN_SOURCE_EXTENDED.
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include <locale.h>
#include <wchar.h>
#include <ncursesw/curses.h>
// glibc declares these only under _XOPEN_SOURCE, which Swift's Glibc module is built without.
extern int wcwidth(wchar_t c);
extern int wcswidth(const wchar_t *s, size_t n);
#endif
