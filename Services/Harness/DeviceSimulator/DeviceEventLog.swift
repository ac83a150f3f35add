import ClientCore
import Foundation
import Synchronization
import Runtime

/// The recent `ClientEvent`s of one device, numbered, so a control route can wait for the event
/// its action causes (e.g. the dismissal report reaching the api).
final class DeviceEventLog: Sendable {
    private struct State {
        var next = 0
        var recent: [(number: Int, event: ClientEvent)] = []
    }

    private let state = LockedValue(State())
    private let capacity: Int

    init(capacity: Int = 256) { self.capacity = capacity }

    /// The sink that feeds this log.
    var sink: ClientEventSink {
        ClientEventSink { [weak self] event in self?.append(event) }
    }

    func append(_ event: ClientEvent) {
        state.withLock { state in
            state.next += 1
            state.recent.append((state.next, event))
            if state.recent.count > capacity { state.recent.removeFirst(state.recent.count - capacity) }
        }
    }

    /// The number of the latest event; pass it to `wait(after:)`.
    var mark: Int { state.withLock { $0.next } }

    /// Events after `mark`, oldest first.
    func events(after mark: Int) -> [ClientEvent] {
        state.withLock { state in state.recent.filter { $0.number > mark }.map(\.event) }
    }

    /// Waits (polling every 20 ms, at most `timeout`) for an event after `mark` that `matches`.
    func wait(after mark: Int, timeout: Duration, _ matches: (ClientEvent) -> Bool) async -> ClientEvent? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let hit = events(after: mark).first(where: matches) { return hit }
            if ContinuousClock.now >= deadline { return nil }
            do { try await Task.sleep(for: .milliseconds(20)) } catch { return nil }
        }
    }
}
