import Synchronization
import Runtime

/// Group commit: concurrent callers submit inputs and await their own outputs, while batches of
/// pending inputs are handed to one `work` call each, so per-call costs (a round trip, a statement,
/// a wait for acknowledgements) are paid once per batch instead of once per caller.
///
/// Batches form by themselves under load: when fewer than `Limits.concurrency` batches run, a new
/// input starts a batch at once; otherwise it queues and goes with the next batch, up to
/// `Limits.maxBatch` inputs. With `Limits.maxWait`, a batch that starts while another runs first waits
/// that long for more inputs (bigger batches under load); a caller on an idle queue never waits.
///
/// Equal inputs in one batch are passed to `work` once and all their callers get the same output
/// (`work` sees distinct inputs only). A `work` call that fails fails only the callers of its batch.
///
/// `work` receives a `release` function: calling it (e.g. once the statement that needs the slot is
/// done) lets the next batch start while this one finishes (e.g. awaits acknowledgements); the slot
/// is released at the end of `work` anyway.
final class GroupCommitQueue<Input: Hashable & Sendable, Output: Sendable>: Sendable {
    /// How batches form.
    struct Limits: Sendable {
        /// Most inputs per batch.
        var maxBatch: Int = 64
        /// Most batches holding a slot at once.
        var concurrency: Int = 2
        /// How long a batch starting while another runs waits for more inputs (zero: none).
        var maxWait: Duration = .zero
    }

    /// Runs one batch: `inputs` are distinct; returns one result per input, in order.
    typealias Work = @Sendable (_ inputs: [Input], _ release: @escaping @Sendable () -> Void) async -> [Result<Output, any Error>]

    private struct Waiter {
        var input: Input
        var continuation: CheckedContinuation<Output, any Error>
    }

    private struct State {
        var pending: [Waiter] = []
        var running = 0
    }

    let limits: Limits
    private let work: Work
    private let state = LockedValue(State())

    init(limits: Limits, work: @escaping Work) {
        var limits = limits
        limits.maxBatch = max(1, limits.maxBatch)
        limits.concurrency = max(1, limits.concurrency)
        self.limits = limits
        self.work = work
    }

    /// Queues `input` and returns its output once its batch ran.
    /// - Throws: what `work` reported for this input (or for the whole batch).
    func submit(_ input: Input) async throws -> Output {
        try await withCheckedThrowingContinuation { continuation in
            let start = state.withLock { state in
                state.pending.append(Waiter(input: input, continuation: continuation))
                guard state.running < limits.concurrency else { return false }
                state.running += 1
                return true
            }
            if start { startBatch() }
        }
    }

    /// Inputs queued and not yet in a batch (for tests and metrics).
    var pendingCount: Int { state.withLock { $0.pending.count } }

    private func startBatch() {
        Task { await self.runBatch() }
    }

    /// Runs one batch in an already taken slot (or gives the slot back when nothing is pending).
    private func runBatch() async {
        // Wait for company only under load (another batch holds a slot): an idle caller goes at once.
        if limits.maxWait > .zero, state.withLock({ $0.pending.count < limits.maxBatch && $0.running > 1 }) {
            try? await Task.sleep(for: limits.maxWait)
        }
        let batch: [Waiter] = state.withLock { state in
            let count = min(limits.maxBatch, state.pending.count)
            let taken = Array(state.pending.prefix(count))
            state.pending.removeFirst(count)
            if taken.isEmpty { state.running -= 1 }
            return taken
        }
        guard !batch.isEmpty else { return }

        var inputs: [Input] = []
        var position: [Input: Int] = [:]
        inputs.reserveCapacity(batch.count)
        for waiter in batch where position[waiter.input] == nil {
            position[waiter.input] = inputs.count
            inputs.append(waiter.input)
        }
        let slot = Slot { [self] in releaseSlot() }
        let results = await work(inputs, slot.release)
        slot.release()
        for waiter in batch {
            let index = position[waiter.input]!
            if index < results.count {
                waiter.continuation.resume(with: results[index])
            } else {
                waiter.continuation.resume(throwing: GroupCommitError.missingResult(batchSize: inputs.count, results: results.count))
            }
        }
    }

    /// Frees a slot; starts the next batch in it when inputs are pending.
    private func releaseSlot() {
        let next = state.withLock { state in
            guard !state.pending.isEmpty else {
                state.running -= 1
                return false
            }
            return true
        }
        if next { startBatch() }
    }
}

/// A batch's slot, given back exactly once however often `release` is called.
private final class Slot: Sendable {
    private let released = Atomic<Bool>(false)
    private let onRelease: @Sendable () -> Void

    init(onRelease: @escaping @Sendable () -> Void) {
        self.onRelease = onRelease
    }

    @Sendable func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        onRelease()
    }
}

/// A `GroupCommitQueue` work function that broke its contract.
enum GroupCommitError: Error, CustomStringConvertible {
    /// Fewer results than inputs.
    case missingResult(batchSize: Int, results: Int)

    var description: String {
        switch self {
        case .missingResult(let size, let results): "a batch of \(size) answered only \(results) results"
        }
    }
}
