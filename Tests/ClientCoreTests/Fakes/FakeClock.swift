import ClientCore
import Foundation
import Synchronization
import Runtime

/// A clock that moves only when told to; `sleep` records the duration, advances the clock by it
/// and returns at once.
final class FakeClock: ClientClock {
    private let state: LockedValue<(now: Date, sleeps: [Double])>

    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { state = LockedValue((start, [])) }

    func now() -> Date { state.withLock { $0.now } }

    func sleep(seconds: Double) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.sleeps.append(seconds)
            state.now += seconds
        }
        await Task.yield()
    }

    func advance(by seconds: Double) { state.withLock { $0.now += seconds } }

    var sleeps: [Double] { state.withLock { $0.sleeps } }

    /// The current time as epoch seconds.
    var epoch: Int64 { Int64(now().timeIntervalSince1970) }
}
