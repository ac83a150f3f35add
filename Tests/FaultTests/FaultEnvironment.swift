import DevStack
import Foundation

/// Where the fault suite finds the build, the checkout, the Cricsheet data and the servers, and
/// how big a run it makes (`FAULT_SUITE_SCALE`, `FAULT_SUITE_SPEED`, `FAULT_SUITE_DEVICES`,
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

    /// CI (default): 6 devices at 2 deliveries/s, one round. `FAULT_SUITE_SCALE=full`: 40 devices
    /// at 1 delivery/s, up to 3 rounds. `FAULT_SUITE_DEVICES` / `FAULT_SUITE_SPEED` / `FAULT_SUITE_ROUNDS`
    /// override either.
    static var scale: Scale {
        let full = environment["FAULT_SUITE_SCALE"] == "full"
        var scale = full ? Scale(devices: 40, speed: 1, match: 1415755, rounds: 3) : Scale(devices: 6, speed: 2, match: 1415755, rounds: 1)
        if let value = environment["FAULT_SUITE_DEVICES"].flatMap(Int.init), value > 0 { scale.devices = value + value % 2 }
        if let value = environment["FAULT_SUITE_SPEED"].flatMap(Double.init), value > 0 { scale.speed = value }
        if let value = environment["FAULT_SUITE_ROUNDS"].flatMap(Int.init), value > 0 { scale.rounds = value }
        if let value = environment["FAULT_SUITE_MATCH"].flatMap(Int.init) { scale.match = value }
        return scale
    }

    /// The checkout (three levels above this file).
    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    static var stackDirectory: URL {
        URL(fileURLWithPath: environment["STACK_DIR"] ?? root.appendingPathComponent(".stack").path)
    }

    /// The bin directory holding the products (next to the test bundle after `swift build --build-tests`).
    static func binDirectory() throws -> URL {
        var candidate = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while candidate.path != "/" {
            if FileManager.default.isExecutableFile(atPath: candidate.appendingPathComponent("poller").path) { return candidate }
            candidate = candidate.deletingLastPathComponent()
        }
        throw FaultFailure("the executables are not built next to the tests: run `swift build --build-tests` (scripts/test does)")
    }

    /// CRICSHEET_DIR, or ../shared/data/cricsheet next to the checkout (one or two levels up).
    static func cricsheetDirectory() throws -> URL {
        if let path = environment["CRICSHEET_DIR"] { return URL(fileURLWithPath: path) }
        for base in [root.deletingLastPathComponent(), root.deletingLastPathComponent().deletingLastPathComponent()] {
            let candidate = base.appendingPathComponent("shared/data/cricsheet")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
        }
        throw FaultFailure("no Cricsheet data at ../shared/data/cricsheet (set CRICSHEET_DIR)")
    }

    static var kafkaBrokers: String { environment["KAFKA_BROKERS"] ?? "127.0.0.1:19092" }
    static var databaseURL: String { environment["DATABASE_URL"] ?? "postgresql://sightscreen@127.0.0.1:55432/sightscreen" }

    /// Fails (never skips) when PostgreSQL or Kafka is not listening.
    static func requireServers() throws {
        let kafka = kafkaBrokers.split(separator: ",").first.map(String.init) ?? "127.0.0.1:19092"
        let database = URL(string: databaseURL.replacingOccurrences(of: "postgresql://", with: "http://"))
        let postgres = "\(database?.host ?? "127.0.0.1"):\(database?.port ?? 5432)"
        for (name, address) in [("PostgreSQL", postgres), ("Kafka", kafka)] where !reachable(address) {
            throw FaultFailure("\(name) is not reachable at \(address): start it with scripts/stack servers")
        }
    }

    static func reachable(_ address: String) -> Bool {
        let parts = address.split(separator: ":")
        guard parts.count == 2, let port = UInt16(parts[1]) else { return false }
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = port.bigEndian
        target.sin_addr.s_addr = inet_addr(String(parts[0]) == "localhost" ? "127.0.0.1" : String(parts[0]))
        return withUnsafePointer(to: &target) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}

/// A failed precondition or wait, with what to do about it.
struct FaultFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
