import CEpoll
import Foundation
import Glibc
import Synchronization
import Runtime

/// Something that owns a file descriptor registered with an `EventLoop`. Called on the loop thread.
package protocol EventLoopHandler: AnyObject {
    func handleEvents(readable: Bool, writable: Bool, failed: Bool)
}

/// Something that wants a call at the end of the current loop iteration (to batch writes).
package protocol EventLoopFlushable: AnyObject {
    func flushPending()
}

/// A dedicated thread running epoll: file descriptor readiness, cross-thread tasks and timers. The one
/// event loop of the project: the HTTP/2 client and server and the HTTP/1.1 server all run on it.
///
/// Thread safety (`@unchecked Sendable`): `incoming` is guarded by a `Mutex`, `stopping` is atomic;
/// every other stored property is touched only on the loop thread (tasks reach it through `execute`).
package final class EventLoop: @unchecked Sendable {
    private let epollFD: Int32
    private let wakeFD: Int32
    private let incoming = LockedValue<[@Sendable () -> Void]>([])
    private let stopping = Atomic<Bool>(false)
    private let name: String
    private var thread: Thread?
    /// The loop thread's `pthread_t` once it runs (0 before): lets `inLoop` tell without a wait.
    private let threadID = Atomic<UInt>(0)
    private var handlers: [Int32: EventLoopHandler] = [:]
    private var dirty: [EventLoopFlushable] = []
    private var dirtyIDs: Set<ObjectIdentifier> = []
    private var timers = TimerQueue()

    package init(name: String) throws {
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        self.name = name
        guard epollFD >= 0, wakeFD >= 0 else {
            throw EventLoopError(name: name, reason: String(cString: strerror(errno)))
        }
        sightscreen_epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, EPOLLIN.rawValue)
    }

    deinit {
        close(epollFD)
        close(wakeFD)
    }

    /// Starts the thread. Call once. Returns at once: the thread records its id itself.
    package func start() {
        let thread = Thread { [self] in
            threadID.store(UInt(pthread_self()), ordering: .releasing)
            Self.blockBrokenPipeSignals()
            run()
        }
        thread.name = name
        thread.stackSize = 1 << 20
        self.thread = thread
        thread.start()
    }

    /// Asks the loop to stop after the current iteration and returns at once (never blocks: it is
    /// called from `deinit`s and async code). Tasks already queued with `execute` still run first.
    /// The thread keeps this object alive until it has left its loop, so nothing it uses is freed
    /// under it.
    package func stop() {
        stopping.store(true, ordering: .releasing)
        wake()
    }

    /// `SSL_write` writes with write(2): to a socket whose peer has gone (a GOAWAY then close, a
    /// client that left) that raises SIGPIPE, which kills the whole process by default, whoever
    /// embeds this library (a test runner, a tool). SIGPIPE from a write goes to the writing thread,
    /// and every TLS write happens on this loop's thread, so blocking it here turns it into the EPIPE
    /// the loop already handles, without touching the process's signal disposition.
    private static func blockBrokenPipeSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    package var inLoop: Bool { UInt(pthread_self()) == threadID.load(ordering: .acquiring) }

    /// Runs `task` on the loop thread, soon.
    package func execute(_ task: @escaping @Sendable () -> Void) {
        let first = incoming.withLock { queue in
            queue.append(task)
            return queue.count == 1
        }
        if first { wake() }
    }

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    // MARK: - Loop-thread API

    package func register(_ fd: Int32, handler: EventLoopHandler, writable: Bool = false) {
        handlers[fd] = handler
        sightscreen_epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, mask(writable))
    }

    package func setWritableInterest(_ fd: Int32, _ writable: Bool) {
        sightscreen_epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, mask(writable))
    }

    /// Sets both interests of `fd`: without `readable` the loop stops reporting input (a connection whose
    /// request is being answered, so pipelined bytes wait in the kernel instead of spinning the loop);
    /// errors and hang-ups are still reported.
    package func setInterest(_ fd: Int32, readable: Bool, writable: Bool) {
        var bits = writable ? EPOLLOUT.rawValue : 0
        if readable { bits |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue }
        sightscreen_epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, bits)
    }

    package func unregister(_ fd: Int32) {
        handlers[fd] = nil
        sightscreen_epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, 0)
    }

    private func mask(_ writable: Bool) -> UInt32 {
        EPOLLIN.rawValue | EPOLLRDHUP.rawValue | (writable ? EPOLLOUT.rawValue : 0)
    }

    /// Asks for `flushPending()` at the end of this iteration (once, however often it is asked).
    package func markDirty(_ item: EventLoopFlushable) {
        if dirtyIDs.insert(ObjectIdentifier(item)).inserted { dirty.append(item) }
    }

    /// Runs `action` on the loop after `delay` nanoseconds.
    package func schedule(afterNanoseconds delay: UInt64, _ action: @escaping () -> Void) {
        timers.insert(deadline: Self.monotonicNanoseconds() &+ delay, action: action)
    }

    package static func monotonicNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    private func run() {
        let capacity = 256
        let fds = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
        let events = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity)
        defer {
            fds.deallocate()
            events.deallocate()
        }
        while !stopping.load(ordering: .acquiring) {
            var timeout: Int32 = 1000
            if let next = timers.nextDeadline {
                let now = Self.monotonicNanoseconds()
                timeout = next <= now ? 0 : Int32(min(1000, (next - now + 999_999) / 1_000_000))
            }
            let count = sightscreen_epoll_wait(epollFD, fds, events, Int32(capacity), timeout)
            if count > 0 {
                for index in 0..<Int(count) {
                    let fd = fds[index]
                    if fd == wakeFD {
                        var value: UInt64 = 0
                        _ = read(wakeFD, &value, 8)
                        continue
                    }
                    guard let handler = handlers[fd] else { continue }
                    let bits = events[index]
                    handler.handleEvents(
                        readable: bits & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLHUP.rawValue) != 0,
                        writable: bits & EPOLLOUT.rawValue != 0,
                        failed: bits & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0)
                }
            }
            let tasks = incoming.withLock { queue -> [@Sendable () -> Void] in
                let taken = queue
                queue.removeAll(keepingCapacity: true)
                return taken
            }
            for task in tasks { task() }
            let now = Self.monotonicNanoseconds()
            while let action = timers.popDue(now: now) { action() }
            flushDirty()
        }
        // Tasks queued just before `stop()` (a shutdown that closes connections) still run.
        let last = incoming.withLock { queue -> [@Sendable () -> Void] in
            defer { queue.removeAll() }
            return queue
        }
        for task in last { task() }
        flushDirty()
    }

    private func flushDirty() {
        var rounds = 0
        while !dirty.isEmpty && rounds < 16 {
            let items = dirty
            dirty.removeAll(keepingCapacity: true)
            dirtyIDs.removeAll(keepingCapacity: true)
            for item in items { item.flushPending() }
            rounds += 1
        }
    }
}

/// The kernel refused an epoll or eventfd descriptor (descriptor limit reached).
package struct EventLoopError: Error, CustomStringConvertible {
    /// The loop's thread name.
    package let name: String
    /// The system's explanation.
    package let reason: String
    package var description: String { "cannot create event loop \(name): \(reason)" }
}

/// Timers ordered by deadline (sorted descending so the next one pops from the end).
struct TimerQueue {
    private var entries: [(deadline: UInt64, action: () -> Void)] = []

    var nextDeadline: UInt64? { entries.last?.deadline }

    mutating func insert(deadline: UInt64, action: @escaping () -> Void) {
        var low = 0
        var high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].deadline > deadline { low = mid + 1 } else { high = mid }
        }
        entries.insert((deadline, action), at: low)
    }

    mutating func popDue(now: UInt64) -> (() -> Void)? {
        guard let last = entries.last, last.deadline <= now else { return nil }
        entries.removeLast()
        return last.action
    }
}
