// The two glibc calls a child process needs that Swift's Glibc module does not show (declared only
// under _GNU_SOURCE): closing every descriptor from `from` up in the child, and a pipe created
// close-on-exec. Their one home (the Spawning module's Subprocess).
#ifndef SIGHTSCREEN_CSPAWN_H
#define SIGHTSCREEN_CSPAWN_H

#include <spawn.h>

/// posix_spawn_file_actions_addclosefrom_np (glibc 2.34+): 0 or an errno.
int sightscreen_spawn_add_close_from(posix_spawn_file_actions_t *actions, int from);

/// pipe2(ends, O_CLOEXEC): 0, or -1 with errno set. ends[0] reads, ends[1] writes.
int sightscreen_spawn_pipe(int ends[2]);

#endif
