/* rules.h - the acceptance rules of today's loaders, checked against a
 * bzImage file (bzpack --info): met, or not met and why. */
#ifndef RULES_H
#define RULES_H

#include <stdio.h>

#include "util.h"

/* One line per loader; returns how many rules are not met. */
int rules_print(FILE *out, const struct buffer *file);

#endif
