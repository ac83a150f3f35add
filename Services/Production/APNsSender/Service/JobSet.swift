import Runtime
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
    /// How many jobs are in each state; what `wait(until:)` conditions look at.
    struct Counts: Sendable {
        /// Jobs holding a sending slot.
        var sending = 0
        /// Jobs parked between retry rounds.
        var parked = 0
        /// Parked jobs whose wait is over, waiting for a sending slot (they go before new jobs).
        var returning = 0
        let limit: Int
        let waitingLimit: Int

        /// Jobs in progress (sending, parked or returning).
        var count: Int { sending + parked + returning }
        /// Jobs parked between retry rounds.
        var parkedCount: Int { parked }
        /// Whether a new job may start: a sending slot is free and not claimed by a returning
        /// job, and the jobs in memory stay within `limit + waitingLimit`.
        var hasSlot: Bool { sending + returning < limit && count < limit + waitingLimit }
    }

    private struct Tasks {
        var running: [Int: Task<Void, Never>] = [:]
        /// Ids whose task ended before it was registered.
        var endedEarly: Set<Int> = []
        var nextID = 0
    }

    let limit: Int
    let waitingLimit: Int
    /// The counts, awaited by `wait(until:)` and by returning jobs (continuations, no polling).
    private let counts: AsyncCondition<Counts>
    private let tasks = LockedValue(Tasks())

    /// How a job waits out its back-off (`Task.sleep`; tests pass one they release by hand).
    let sleep: @Sendable (Duration) async throws -> Void

    init(limit: Int, waitingLimit: Int = 0, sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) {
        self.sleep = sleep
        self.limit = max(1, limit)
        self.waitingLimit = max(0, waitingLimit)
        counts = AsyncCondition(Counts(limit: self.limit, waitingLimit: self.waitingLimit))
    }

    /// Jobs in progress (sending, parked or returning).
    var count: Int { counts.value.count }

    /// Jobs parked between retry rounds.
    var parkedCount: Int { counts.value.parked }

    /// Whether a new job may start (see `Counts.hasSlot`).
    var hasSlot: Bool { counts.value.hasSlot }

    /// Starts `body` as a job holding a sending slot (call only when `hasSlot`; the limit is the
    /// caller's to respect). The body gets the job's `JobSlot` to park it between rounds.
    func start(_ body: @escaping @Sendable (JobSlot) async -> Void) {
        counts.update { $0.sending += 1 }
        let id = tasks.withLock { tasks -> Int in
            tasks.nextID += 1
            return tasks.nextID
        }
        let slot = JobSlot(set: self)
        let task = Task {
            await body(slot)
            self.ended(id, parked: slot.isParked)
        }
        tasks.withLock { tasks in
            if tasks.endedEarly.remove(id) == nil { tasks.running[id] = task }
        }
    }

    private func ended(_ id: Int, parked: Bool) {
        tasks.withLock { tasks in
            if tasks.running.removeValue(forKey: id) == nil { tasks.endedEarly.insert(id) }
        }
        counts.update { counts in
            if parked { counts.parked -= 1 } else { counts.sending -= 1 }
        }
    }

    /// Gives up a sending slot for a wait, if there is room for one more parked job; false (the
    /// slot is kept) when `waitingLimit` parked jobs already wait.
    fileprivate func park() -> Bool {
        counts.update { counts in
            guard counts.parked + counts.returning < waitingLimit else { return false }
            counts.sending -= 1
            counts.parked += 1
            return true
        }
    }

    /// Takes a sending slot back after a wait, before any new job: suspends until one is freed.
    /// Returns false, the job staying parked, when the task is cancelled.
    fileprivate func unpark() async -> Bool {
        counts.update { counts in
            counts.parked -= 1
            counts.returning += 1
        }
        let limit = self.limit
        let took = await counts.claim { counts in
            guard counts.sending < limit else { return false }
            counts.returning -= 1
            counts.sending += 1
            return true
        }
        if !took {
            counts.update { counts in
                counts.returning -= 1
                counts.parked += 1
            }
        }
        return took
    }

    /// Suspends until `condition` holds; false when the waiting task is cancelled first.
    func wait(until condition: @escaping @Sendable (Counts) -> Bool) async -> Bool {
        await counts.wait(until: condition)
    }

    /// Suspends until `condition` holds, for at most `timeout`; resumed by the change that makes
    /// it hold. Returns whether it held (false also when the waiting task is cancelled).
    func wait(until condition: @escaping @Sendable (Counts) -> Bool, timeout: Duration) async -> Bool {
        await counts.wait(until: condition, timeout: timeout)
    }

    /// Cancels every running job.
    func cancelAll() {
        let running = tasks.withLock { Array($0.running.values) }
        for task in running { task.cancel() }
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
            if let set { try await set.sleep(delay) } else { try await Task.sleep(for: delay) }
            return
        }
        parked.store(true, ordering: .releasing)
        // A cancellation leaves the job parked; `JobSet.ended` accounts for it.
        try await set.sleep(delay)
        guard await set.unpark() else { throw CancellationError() }
        parked.store(false, ordering: .releasing)
    }
}
