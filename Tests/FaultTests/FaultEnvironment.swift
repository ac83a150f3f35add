import DevStack
import Foundation
import PipelineTestSupport

/// How big a fault-suite run is (`FAULT_SUITE_SCALE`, `FAULT_SUITE_SPEED`, `FAULT_SUITE_DEVICES`,
/// `FAULT_SUITE_MATCH`, `FAULT_SUITE_ROUNDS`; scripts/fault-suite sets them), and which broker it pauses.
enum FaultEnvironment {
    static let environment = ProcessInfo.processInfo.environment

    /// The pid file of the broker the suite pauses (`FAULT_SUITE_BROKER_PID_FILE`): the stack's Tansu by default; one
    /// Apache Kafka broker's for a run against a real cluster (`KAFKA_BROKERS` pointing at it).
    static var brokerPidFile: URL {
        environment["FAULT_SUITE_BROKER_PID_FILE"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? PipelineEnvironment.stackDirectory.appendingPathComponent("tansu.pid")
    }

    /// The size of one run.
    struct Scale: CustomStringConvertible {
        var devices: Int
        /// Replay speed, deliveries per second.
        var speed: Double
        /// Cricsheet id of the replayed match (the faults run while it is live).
        var match: Int
        /// Cricsheet ids of more matches live at the same time, every device following each (issue 42's match day).
        var others: [Int]
        /// How many times the whole fault script runs (a round starts only while the match is live).
        var rounds: Int
        var description: String {
            "match=\(match) others=\(others.map(String.init).joined(separator: ",")) devices=\(devices) speed=\(speed) rounds=\(rounds)"
        }
    }

    /// CI (default): 6 devices at 1 delivery/s (the whole script, stalls included, runs while the
    /// match is live), one round, a shorter T20 (1426312, 184 deliveries) live alongside. `FAULT_SUITE_SCALE=full`: 40 devices
    /// at 1 delivery/s, up to 3 rounds, that T20 and an ODI (1384429) alongside. `FAULT_SUITE_DEVICES` / `FAULT_SUITE_SPEED` /
    /// `FAULT_SUITE_ROUNDS` / `FAULT_SUITE_MATCH` / `FAULT_SUITE_OTHERS` (comma-separated Cricsheet ids, "none" for none)
    /// override either.
    static var scale: Scale {
        let full = environment["FAULT_SUITE_SCALE"] == "full"
        var scale = full ? Scale(devices: 40, speed: 1, match: 1415755, others: [1426312, 1384429], rounds: 3)
            : Scale(devices: 6, speed: 1, match: 1415755, others: [1426312], rounds: 1)
        if let value = environment["FAULT_SUITE_DEVICES"].flatMap(Int.init), value > 0 { scale.devices = value + value % 2 }
        if let value = environment["FAULT_SUITE_SPEED"].flatMap(Double.init), value > 0 { scale.speed = value }
        if let value = environment["FAULT_SUITE_ROUNDS"].flatMap(Int.init), value > 0 { scale.rounds = value }
        if let value = environment["FAULT_SUITE_MATCH"].flatMap(Int.init) { scale.match = value }
        if let value = environment["FAULT_SUITE_OTHERS"] {
            // "none", or Cricsheet ids; anything else is a mistake the run should not hide.
            let ids = value == "none" ? [] : value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            precondition(ids.allSatisfy { Int($0) != nil }, "FAULT_SUITE_OTHERS: comma-separated Cricsheet ids or none, not \(value)")
            var seen: Set<Int> = [scale.match]
            scale.others = ids.compactMap { Int($0) }.filter { seen.insert($0).inserted }
        }
        return scale
    }
}
