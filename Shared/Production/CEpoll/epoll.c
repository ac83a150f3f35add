#include "CEpoll.h"

int sightscreen_epoll_ctl(int epfd, int op, int fd, uint32_t events) {
    struct epoll_event event;
    event.events = events;
    event.data.u64 = 0;
    event.data.fd = fd;
    return epoll_ctl(epfd, op, fd, &event);
}

int sightscreen_epoll_wait(int epfd, int *fds, uint32_t *events, int capacity, int timeout_ms) {
    struct epoll_event ready[256];
    if (capacity > 256) capacity = 256;
    int count = epoll_wait(epfd, ready, capacity, timeout_ms);
    for (int i = 0; i < count; i++) {
        fds[i] = ready[i].data.fd;
        events[i] = ready[i].events;
    }
    return count;
}
