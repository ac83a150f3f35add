// epoll for Swift: the packed `struct epoll_event` cannot cross into Swift, so these two wrappers carry the
// descriptor and the event bits as plain integers. The one home of epoll calls (Reactor's EventLoop).
#ifndef SIGHTSCREEN_CEPOLL_H
#define SIGHTSCREEN_CEPOLL_H

#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

/// epoll_ctl without the packed epoll_event struct crossing into Swift (data = fd).
int sightscreen_epoll_ctl(int epfd, int op, int fd, uint32_t events);

/// epoll_wait that writes ready descriptors and their event bits into two arrays (at most 256).
int sightscreen_epoll_wait(int epfd, int *fds, uint32_t *events, int capacity, int timeout_ms);

#endif
