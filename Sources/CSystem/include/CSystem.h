#ifndef CSYSTEM_H
#define CSYSTEM_H
/* Thin wrappers over Linux calls that Swift's Glibc module does not expose. No logic lives here. */
int csystem_placeholder(void);
#endif
