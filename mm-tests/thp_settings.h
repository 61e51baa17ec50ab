/* SPDX-License-Identifier: GPL-2.0 */
/*
 * THP sysfs knobs and vm sysctls (thp_settings.c): thp_save() saves the
 * THP knobs and restores them at exit, sysctl_set() does the same for
 * each sysctl it changes.
 */
#ifndef THP_NUMA_THP_SETTINGS_H
#define THP_NUMA_THP_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#define THP_DIR "/sys/kernel/mm/transparent_hugepage/"

/* The knobs under THP_DIR that thp_save() saves and restores. */
extern const char *const thp_knobs[10];

int read_file(const char *path, char *buf, size_t len);
long read_long(const char *path);
int write_file(const char *path, const char *val);
void bracketed(const char *in, char *out, size_t len);

void thp_save(void);
int thp_set(const char *knob, const char *val);
int thp_restore_knob(const char *knob);
int sysctl_set(const char *path, const char *val);
void sysctl_restore(void);

bool series_expected(void);
bool have_numa_fallback(void);
bool fallback_mode_set(const char *mode);

#endif /* THP_NUMA_THP_SETTINGS_H */
