import Foundation

/// Where the tests that run the real processes (end-to-end, fault suite) find the build, the checkout,
/// the Cricsheet data and the servers.
public enum PipelineEnvironment {
    public static let environment = ProcessInfo.processInfo.environment

    /// The checkout (three levels above this file).
    public static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    public static var stackDirectory: URL {
        URL(fileURLWithPath: environment["STACK_DIR"] ?? root.appendingPathComponent(".stack").path)
    }

    /// The bin directory holding the products (next to the test bundle after `swift build --build-tests`).
    public static func binDirectory() throws -> URL {
        var candidate = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while candidate.path != "/" {
            if FileManager.default.isExecutableFile(atPath: candidate.appendingPathComponent("poller").path) { return candidate }
            candidate = candidate.deletingLastPathComponent()
        }
        throw PipelineTestFailure("the executables are not built next to the tests: run `swift build --build-tests` (scripts/test does)")
    }

    /// CRICSHEET_DIR, or ../shared/data/cricsheet next to the checkout (one or two levels up).
    public static func cricsheetDirectory() throws -> URL {
        if let path = environment["CRICSHEET_DIR"] { return URL(fileURLWithPath: path) }
        for base in [root.deletingLastPathComponent(), root.deletingLastPathComponent().deletingLastPathComponent()] {
            let candidate = base.appendingPathComponent("shared/data/cricsheet")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
        }
        throw PipelineTestFailure("no Cricsheet data at ../shared/data/cricsheet (set CRICSHEET_DIR)")
    }

    public static var kafkaBrokers: String { environment["KAFKA_BROKERS"] ?? "127.0.0.1:19092" }
    public static var databaseURL: String { environment["DATABASE_URL"] ?? "postgresql://sightscreen@127.0.0.1:55432/sightscreen" }

    /// Fails (never skips) when PostgreSQL or Kafka is not listening.
    public static func requireServers() throws {
        let kafka = kafkaBrokers.split(separator: ",").first.map(String.init) ?? "127.0.0.1:19092"
        let database = URL(string: databaseURL.replacingOccurrences(of: "postgresql://", with: "http://"))
        let postgres = "\(database?.host ?? "127.0.0.1"):\(database?.port ?? 5432)"
        for (name, address) in [("PostgreSQL", postgres), ("Kafka", kafka)] where !reachable(address) {
            throw PipelineTestFailure("\(name) is not reachable at \(address): start it with scripts/stack servers")
        }
    }

    public static func reachable(_ address: String) -> Bool {
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
public struct PipelineTestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
