// LD_PRELOADed by scripts/sanitize under ThreadSanitizer only (never built into anything that ships).
//
// librdkafka (the vendored 2.x from the confluent-kafka wheel) makes its threads, mutexes and condition
// variables with C11 <threads.h> (thrd_create, mtx_lock, cnd_wait, ...). glibc implements those by calling
// its internal pthread functions directly, so ThreadSanitizer's pthread interceptors never see them: a broker
// thread started by thrd_create has no TSan thread state and the process dies with SIGSEGV in TSan's
// pthread_once interceptor (called by the wheel's static OpenSSL), and librdkafka's own locking would be
// invisible (false races in the callbacks it runs into our code). These definitions take precedence over
// glibc's (LD_PRELOAD) and forward each call to the public pthread function, which resolves to TSan's
// interceptor. glibc's C11 types are its pthread types (thrd_t is pthread_t; mtx_t and cnd_t have
// pthread_mutex_t's and pthread_cond_t's layout), so the casts are exact.
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <threads.h>

struct start { thrd_start_t function; void *argument; };

static void *trampoline(void *raw) {
    struct start start = *(struct start *)raw;
    free(raw);
    return (void *)(intptr_t)start.function(start.argument);
}

static int result(int status) { return status == 0 ? thrd_success : status == ENOMEM ? thrd_nomem : thrd_error; }

int thrd_create(thrd_t *thread, thrd_start_t function, void *argument) {
    struct start *start = malloc(sizeof *start);
    if (!start) return thrd_nomem;
    start->function = function;
    start->argument = argument;
    int status = pthread_create((pthread_t *)thread, NULL, trampoline, start);
    if (status != 0) free(start);
    return result(status);
}

int thrd_join(thrd_t thread, int *value) {
    void *raw = NULL;
    int status = pthread_join((pthread_t)thread, &raw);
    if (status == 0 && value) *value = (int)(intptr_t)raw;
    return result(status);
}

thrd_t thrd_current(void) { return (thrd_t)pthread_self(); }

int mtx_init(mtx_t *mutex, int type) {
    pthread_mutexattr_t attributes;
    pthread_mutexattr_init(&attributes);
    if (type & mtx_recursive) pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_RECURSIVE);
    int status = pthread_mutex_init((pthread_mutex_t *)mutex, &attributes);
    pthread_mutexattr_destroy(&attributes);
    return result(status);
}

int mtx_lock(mtx_t *mutex) { return result(pthread_mutex_lock((pthread_mutex_t *)mutex)); }
int mtx_unlock(mtx_t *mutex) { return result(pthread_mutex_unlock((pthread_mutex_t *)mutex)); }
void mtx_destroy(mtx_t *mutex) { pthread_mutex_destroy((pthread_mutex_t *)mutex); }

int cnd_init(cnd_t *condition) { return result(pthread_cond_init((pthread_cond_t *)condition, NULL)); }
int cnd_signal(cnd_t *condition) { return result(pthread_cond_signal((pthread_cond_t *)condition)); }
int cnd_broadcast(cnd_t *condition) { return result(pthread_cond_broadcast((pthread_cond_t *)condition)); }
void cnd_destroy(cnd_t *condition) { pthread_cond_destroy((pthread_cond_t *)condition); }
int cnd_wait(cnd_t *condition, mtx_t *mutex) {
    return result(pthread_cond_wait((pthread_cond_t *)condition, (pthread_mutex_t *)mutex));
}
int cnd_timedwait(cnd_t *restrict condition, mtx_t *restrict mutex, const struct timespec *restrict deadline) {
    int status = pthread_cond_timedwait((pthread_cond_t *)condition, (pthread_mutex_t *)mutex, deadline);
    return status == ETIMEDOUT ? thrd_timedout : result(status);
}
