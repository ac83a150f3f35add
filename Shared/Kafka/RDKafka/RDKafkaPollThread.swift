import Foundation
import Synchronization

/// A dedicated thread that serves a producer's delivery reports and errors with `rd_kafka_poll`.
///
/// Keeps its client alive while running; when stopped, the client is released on this thread.
final class RDKafkaPollThread: Sendable {
    private let stopRequested = Atomic<Bool>(false)
    private let exit = Mutex<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    init(client: RDKafkaClient, name: String) {
        let thread = Thread { [self] in
            while !stopRequested.load(ordering: .acquiring) {
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

    /// Asks the loop to end after its current poll (at most 100 ms).
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
