#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>
#include "CSpawn.h"

int sightscreen_spawn_add_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

int sightscreen_spawn_pipe(int ends[2]) {
    return pipe2(ends, O_CLOEXEC);
}
