import Synchronization

/// The jobs in progress, waitable and cancellable as a whole. Jobs are unstructured tasks so that a
/// drain past its grace period can leave them behind.
///
/// Two bounds: at most `limit` jobs *send* at once, and at most `waitingLimit` more may be parked
/// between retry rounds (waiting out a back-off, sending nothing). A job waiting out a long
/// throttle — a priority-10 push retries until its expiration, up to an hour — releases its
/// sending slot while it waits (`JobSlot.park`), so throttled tokens cannot stall every other
/// push. A parked job coming back takes the next free sending slot before any new job starts.
final class JobSet: Sendable {
    private struct State {
        var tasks: [Int: Task<Void, Never>] = [:]
        /// Ids whose task ended before it was registered.
        var endedEarly: Set<Int> = []
        var nextID = 0
        /// Jobs holding a sending slot.
        var sending = 0
        /// Jobs parked between retry rounds.
        var parked = 0
        /// Parked jobs whose wait is over, waiting for a sending slot (they go before new jobs).
        var returning = 0

        var total: Int { sending + parked + returning }
    }

    let limit: Int
    let waitingLimit: Int
    private let state = Mutex(State())

    init(limit: Int, waitingLimit: Int = 0) {
        self.limit = max(1, limit)
        self.waitingLimit = max(0, waitingLimit)
    }

    /// Jobs in progress (sending, parked or returning).
    var count: Int { state.withLock { $0.total } }

    /// Jobs parked between retry rounds.
    var parkedCount: Int { state.withLock { $0.parked } }

    /// Whether a new job may start: a sending slot is free and not claimed by a returning job,
    /// and the jobs in memory stay within `limit + waitingLimit`.
    var hasSlot: Bool {
        state.withLock { $0.sending + $0.returning < limit && $0.total < limit + waitingLimit }
    }

    /// Starts `body` as a job holding a sending slot (call only when `hasSlot`; the limit is the
    /// caller's to respect). The body gets the job's `JobSlot` to park it between rounds.
    func start(_ body: @escaping @Sendable (JobSlot) async -> Void) {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            state.sending += 1
            return state.nextID
        }
        let slot = JobSlot(set: self)
        let task = Task {
            await body(slot)
            self.ended(id, parked: slot.isParked)
        }
        state.withLock { state in
            if state.endedEarly.remove(id) == nil { state.tasks[id] = task }
        }
    }

    private func ended(_ id: Int, parked: Bool) {
        state.withLock { state in
            if parked { state.parked -= 1 } else { state.sending -= 1 }
            if state.tasks.removeValue(forKey: id) == nil { state.endedEarly.insert(id) }
        }
    }

    /// Gives up a sending slot for a wait, if there is room for one more parked job; false (the
    /// slot is kept) when `waitingLimit` parked jobs already wait.
    fileprivate func park() -> Bool {
        state.withLock { state in
            guard state.parked + state.returning < waitingLimit else { return false }
            state.sending -= 1
            state.parked += 1
            return true
        }
    }

    /// Takes a sending slot back after a wait, before any new job; polls every `interval`.
    /// Returns false, the job staying parked, when the task is cancelled.
    fileprivate func unpark(interval: Duration) async -> Bool {
        state.withLock { state in
            state.parked -= 1
            state.returning += 1
        }
        while true {
            let outcome = state.withLock { state -> Bool? in
                if Task.isCancelled {
                    state.returning -= 1
                    state.parked += 1
                    return false
                }
                guard state.sending < limit else { return nil }
                state.returning -= 1
                state.sending += 1
                return true
            }
            if let outcome { return outcome }
            try? await Task.sleep(for: interval)
        }
    }

    /// Waits until `condition` holds, checking every `interval`, for at most `timeout`. Returns
    /// whether it held (false also when the waiting task is cancelled).
    func wait(until condition: @Sendable (JobSet) -> Bool, timeout: Duration, interval: Duration = .milliseconds(5)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition(self) {
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return false }
            try? await Task.sleep(for: interval)
        }
        return true
    }

    /// Cancels every running job.
    func cancelAll() {
        let tasks = state.withLock { Array($0.tasks.values) }
        for task in tasks { task.cancel() }
    }
}

/// One job's hold on the `JobSet`: lets the job wait between retry rounds without holding a
/// sending slot. Used by that job's task only.
final class JobSlot: Sendable {
    private let set: JobSet?
    private let parked = Atomic<Bool>(false)

    fileprivate init(set: JobSet) { self.set = set }

    private init() { set = nil }

    /// A slot outside any `JobSet` (tests that call the processor directly): waits keep nothing.
    static func unmanaged() -> JobSlot { JobSlot() }

    fileprivate var isParked: Bool { parked.load(ordering: .acquiring) }

    /// Waits `delay` — parked, without a sending slot, when the set has room for one more parked
    /// job — then takes a sending slot back. Throws `CancellationError` when cancelled.
    func wait(_ delay: Duration) async throws {
        guard let set, set.park() else {
            try await Task.sleep(for: delay)
            return
        }
        parked.store(true, ordering: .releasing)
        // A cancellation leaves the job parked; `JobSet.ended` accounts for it.
        try await Task.sleep(for: delay)
        guard await set.unpark(interval: .milliseconds(2)) else { throw CancellationError() }
        parked.store(false, ordering: .releasing)
    }
}
