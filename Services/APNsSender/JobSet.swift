import Synchronization

/// The jobs in progress: at most `limit` at once, waitable and cancellable as a whole. Jobs are
/// unstructured tasks so that a drain past its grace period can leave them behind.
final class JobSet: Sendable {
    private struct State {
        var tasks: [Int: Task<Void, Never>] = [:]
        /// Ids whose task ended before it was registered.
        var endedEarly: Set<Int> = []
        var nextID = 0
        var running = 0
    }

    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) { self.limit = max(1, limit) }

    /// Jobs running now.
    var count: Int { state.withLock { $0.running } }

    var hasSlot: Bool { count < limit }

    /// Starts `body` as a job (call only when `hasSlot`; the limit is the caller's to respect).
    func start(_ body: @escaping @Sendable () async -> Void) {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            state.running += 1
            return state.nextID
        }
        let task = Task {
            await body()
            self.ended(id)
        }
        state.withLock { state in
            if state.endedEarly.remove(id) == nil { state.tasks[id] = task }
        }
    }

    private func ended(_ id: Int) {
        state.withLock { state in
            state.running -= 1
            if state.tasks.removeValue(forKey: id) == nil { state.endedEarly.insert(id) }
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
