import Foundation
import Synchronization
import Runtime

/// A dedicated thread that serves a producer's delivery reports and errors with `rd_kafka_poll`.
///
/// Keeps its client alive while running; when stopped, the client is released on this thread.
final class RDKafkaPollThread: Sendable {
    private let stopRequested = Atomic<Bool>(false)
    /// Set by ``drainAndStop(within:)``: until then, keep failing and serving what is outstanding.
    private let drainDeadline = LockedValue<ContinuousClock.Instant?>(nil)
    private let exit = LockedValue<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    init(client: RDKafkaClient, name: String) {
        let thread = Thread { [self] in
            while true {
                if stopRequested.load(ordering: .acquiring) {
                    // A stop after `drainAndStop` waits for the drain (bounded by its deadline).
                    guard let deadline = drainDeadline.withLock({ $0 }), client.outstanding > 0, ContinuousClock.now < deadline else { break }
                    client.purgeOutstanding()
                }
                client.poll(timeoutMs: 100)
            }
            client.poll(timeoutMs: 0)
            let waiters = exit.withLock { state in
                state.done = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
        thread.name = name
        thread.start()
    }

    /// Fails every message still outstanding (purging again each round, so one enqueued meanwhile
    /// fails too), serves their delivery reports until nothing is outstanding or `limit` passed, then
    /// stops. For an instance being replaced: no sender is left waiting on a report.
    func drainAndStop(within limit: Duration) {
        drainDeadline.withLock { $0 = ContinuousClock.now + limit }
        requestStop()
    }

    /// Asks the loop to end after its current poll (at most 100 ms; after the drain if one was asked for).
    func requestStop() {
        stopRequested.store(true, ordering: .releasing)
    }

    /// Stops the loop and waits until the thread finished its last poll.
    func stop() async {
        requestStop()
        await withCheckedContinuation { continuation in
            let done = exit.withLock { state in
                if !state.done { state.waiters.append(continuation) }
                return state.done
            }
            if done { continuation.resume() }
        }
    }
}
