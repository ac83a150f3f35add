import Foundation
import Spawning

/// A service process's standard error, written to a file the test reads while the process runs: the
/// `"event":"started"` line says which port the operations server bound (`HTTP_PORT=0`).
struct ServiceLogFile {
    let url: URL
    let handle: FileHandle

    init(service: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(service)-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw Failure.cannotCreate(url.path) }
        handle = try FileHandle(forWritingTo: url)
    }

    enum Failure: Error, CustomStringConvertible {
        case cannotCreate(String)
        case exited(status: Int32)
        case noStartedLine(waited: Duration)
        var description: String {
            switch self {
            case .cannotCreate(let path): "cannot create the log file \(path)"
            case .exited(let status): "the process exited with \(status) before logging \"started\""
            case .noStartedLine(let waited): "no \"started\" line with a port within \(waited)"
            }
        }
    }

    /// Everything the process has written so far.
    func text() -> String {
        (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }

    /// Waits for the `"event":"started"` line and returns its `field` (`"port"`, or `"metrics_port"`).
    func startedPort(of process: Subprocess, waitUpTo timeout: Duration, field: String = "port") async throws -> UInt16 {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            for line in text().split(separator: "\n") where line.contains(#""event":"started""#) {
                if let range = line.range(of: "\"\(field)\":\""),
                   let port = UInt16(line[range.upperBound...].prefix { $0.isNumber }) { return port }
            }
            if let ended = process.termination { throw Failure.exited(status: ended.status) }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw Failure.noStartedLine(waited: timeout)
    }
}
