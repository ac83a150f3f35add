import Synchronization

/// A value under a lock that async code can wait on: a waiter suspends on a continuation until a
/// condition on the value holds, and is resumed by the update that made it hold — no polling, no
/// thread blocked while it waits.
///
/// ```swift
/// let inFlight = AsyncCondition(0)
/// inFlight.update { $0 += 1 }                     // a request starts
/// inFlight.update { $0 -= 1 }                     // it ends: waiters for 0 are resumed
/// let drained = await inFlight.wait(until: { $0 == 0 }, timeout: .seconds(10))
/// ```
///
/// `claim(_:)` waits until a closure can *take* something from the value (a free slot), and takes
/// it in the same critical section, so two waiters never take the same thing. Waiters are served
/// in arrival order. Every update re-evaluates the waiters under the lock, so keep conditions cheap
/// and waiters few (tens, not thousands).
public final class AsyncCondition<Value: Sendable>: Sendable {
    /// A waiter: its take-or-refuse closure and its continuation.
    private struct Waiter {
        let id: Int
        let take: @Sendable (inout Value) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var value: Value
        var waiters: [Waiter] = []
        var nextID = 0
        /// Ids cancelled before their continuation was registered.
        var cancelledEarly: Set<Int> = []
    }

    private let state: LockedValue<State>

    public init(_ value: Value) {
        state = LockedValue(State(value: value))
    }

    /// The current value.
    public var value: Value { state.withLock { $0.value } }

    /// Changes the value, then resumes every waiter whose condition now holds (in arrival order).
    @discardableResult
    public func update<Result>(_ body: (inout Value) -> Result) -> Result {
        let (result, ready) = state.withLock { state -> (Result, [CheckedContinuation<Bool, Never>]) in
            let result = body(&state.value)
            return (result, Self.serve(&state))
        }
        for continuation in ready { continuation.resume(returning: true) }
        return result
    }

    /// Suspends until `condition` holds. Returns true when it held, false when the waiting task
    /// was cancelled first.
    public func wait(until condition: @escaping @Sendable (Value) -> Bool) async -> Bool {
        await claim { condition($0) }
    }

    /// Like `wait(until:)`, giving up after `timeout` (false).
    public func wait(until condition: @escaping @Sendable (Value) -> Bool, timeout: Duration) async -> Bool {
        await claim(timeout: timeout) { condition($0) }
    }

    /// Suspends until `take` returns true, which it does only after changing the value (taking a
    /// slot, say). `take` runs under the lock: first at once, then after every update. Returns
    /// false, with nothing taken, when the task is cancelled first.
    public func claim(_ take: @escaping @Sendable (inout Value) -> Bool) async -> Bool {
        let id: Int? = state.withLock { state in
            if take(&state.value) { return nil }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return true }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let immediate: Bool? = state.withLock { state in
                    if state.cancelledEarly.remove(id) != nil { return false }
                    if take(&state.value) { return true }
                    state.waiters.append(Waiter(id: id, take: take, continuation: continuation))
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter: CheckedContinuation<Bool, Never>? = state.withLock { state in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                    state.cancelledEarly.insert(id)
                    return nil
                }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(returning: false)
        }
    }

    /// Like `claim(_:)`, giving up after `timeout` (false, nothing taken).
    public func claim(timeout: Duration, _ take: @escaping @Sendable (inout Value) -> Bool) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.claim(take) }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            // The timer may win the race just as the claim succeeded: then the claim's `true`
            // comes second and must not be lost, since it took something.
            let second = await group.next() ?? false
            return first || second
        }
    }

    /// Removes and returns the continuations of waiters that can now take what they wait for.
    private static func serve(_ state: inout State) -> [CheckedContinuation<Bool, Never>] {
        guard !state.waiters.isEmpty else { return [] }
        var ready: [CheckedContinuation<Bool, Never>] = []
        var index = 0
        while index < state.waiters.count {
            if state.waiters[index].take(&state.value) {
                ready.append(state.waiters.remove(at: index).continuation)
            } else {
                index += 1
            }
        }
        return ready
    }
}
