import DevStack
import Foundation

/// How big a fault-suite run is (`FAULT_SUITE_SCALE`, `FAULT_SUITE_SPEED`, `FAULT_SUITE_DEVICES`,
/// `FAULT_SUITE_MATCH`, `FAULT_SUITE_ROUNDS`; scripts/fault-suite sets them).
enum FaultEnvironment {
    static let environment = ProcessInfo.processInfo.environment

    /// The size of one run.
    struct Scale: CustomStringConvertible {
        var devices: Int
        /// Replay speed, deliveries per second.
        var speed: Double
        /// Cricsheet id of the replayed match.
        var match: Int
        /// How many times the whole fault script runs (a round starts only while the match is live).
        var rounds: Int
        var description: String { "match=\(match) devices=\(devices) speed=\(speed) rounds=\(rounds)" }
    }

    /// CI (default): 6 devices at 1 delivery/s (the whole script, stalls included, runs while the
    /// match is live), one round. `FAULT_SUITE_SCALE=full`: 40 devices
    /// at 1 delivery/s, up to 3 rounds. `FAULT_SUITE_DEVICES` / `FAULT_SUITE_SPEED` / `FAULT_SUITE_ROUNDS`
    /// override either.
    static var scale: Scale {
        let full = environment["FAULT_SUITE_SCALE"] == "full"
        var scale = full ? Scale(devices: 40, speed: 1, match: 1415755, rounds: 3) : Scale(devices: 6, speed: 1, match: 1415755, rounds: 1)
        if let value = environment["FAULT_SUITE_DEVICES"].flatMap(Int.init), value > 0 { scale.devices = value + value % 2 }
        if let value = environment["FAULT_SUITE_SPEED"].flatMap(Double.init), value > 0 { scale.speed = value }
        if let value = environment["FAULT_SUITE_ROUNDS"].flatMap(Int.init), value > 0 { scale.rounds = value }
        if let value = environment["FAULT_SUITE_MATCH"].flatMap(Int.init) { scale.match = value }
        return scale
    }
}
