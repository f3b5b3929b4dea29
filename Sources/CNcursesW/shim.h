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
#include <ncursesw/term.h>
// glibc declares these only under _XOPEN_SOURCE, which Swift's Glibc module is built without.
extern int wcwidth(wchar_t c);
extern int wcswidth(const wchar_t *s, size_t n);

// newterm on the standard streams, and its standard window: unlike initscr, it returns NULL
// for a TERM terminfo does not know instead of ending the process with curses' own message.
static inline WINDOW *quotawatch_newterm(const char *qw_terminal) {
    return newterm(qw_terminal, stdout, stdin) == NULL ? NULL : stdscr;
}

// Whether terminfo has an entry for qw_terminal; the entry is freed again, leaving curses as it was.
static inline int quotawatch_terminal_known(const char *qw_terminal) {
    int qw_status = 0;
    if (setupterm(qw_terminal, 1, &qw_status) != OK || qw_status != 1) return 0;
    del_curterm(set_curterm(NULL));
    return 1;
}
#endif
