import Foundation
import Postgres
import Runtime

/// Connection settings and helpers shared by the server tests.
enum TestDatabase {
    /// `DATABASE_URL`, or the local stack's server.
    static var url: String {
        EnvironmentReader().string("DATABASE_URL", default: PostgresConfiguration.localDefaultURL)
    }

    static let logger = Logger(label: "postgres-tests", minimumLevel: .info)

    static func configuration(maxConnections: Int = 4, searchPath: [String]? = nil) throws -> PostgresConfiguration {
        var configuration = try PostgresConfiguration(url: url)
        configuration.maxConnections = maxConnections
        configuration.searchPath = searchPath
        configuration.applicationName = "sightscreen-postgres-tests"
        return configuration
    }

    /// A pool that has proved it can reach the server; fails the test with how to start it otherwise.
    static func client(
        maxConnections: Int = 4, searchPath: [String]? = nil, acquireTimeout: Duration = .seconds(30)
    ) async throws -> PostgresClient {
        var configuration = try configuration(maxConnections: maxConnections, searchPath: searchPath)
        configuration.acquireTimeout = acquireTimeout
        let client = PostgresClient(configuration: configuration, logger: logger)
        do {
            try await client.healthCheck()
        } catch {
            throw ServerUnreachable(url: url, underlying: "\(error)")
        }
        return client
    }

    /// A lower-case identifier unique to this run, e.g. `rt_3f9a1c0b7d2e`.
    static func uniqueName(_ prefix: String) -> String {
        prefix + "_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
    }

    /// The process's resident set size in bytes, from /proc/self/status (VmRSS).
    static func residentBytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        else { throw TestFailure("no VmRSS in /proc/self/status") }
        return kilobytes * 1024
    }
}

/// The server could not be reached: says how to start it.
struct ServerUnreachable: Error, CustomStringConvertible {
    let url: String
    let underlying: String
    var description: String {
        "PostgreSQL not reachable at \(url): start it with scripts/stack servers (\(underlying))"
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
