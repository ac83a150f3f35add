import Foundation

/// Runs a repository script to completion without blocking Swift's cooperative pool: the child
/// writes into a temporary file and `terminationHandler` resumes the waiting task.
struct ScriptRunner {
    /// What a finished run left behind.
    struct Result: Sendable {
        var status: Int32
        var output: String
    }

    /// The repository root, found from this file's path (Tests/DeployTests/ScriptRunner.swift).
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs `/usr/bin/env <arguments>` in the repository root, stdout and stderr together.
    /// Exit status 127 means `env` did not find the program.
    static func run(_ arguments: [String]) async throws -> Result {
        let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("deploy-tests-\(UUID().uuidString).log")
        FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outputURL) }
        let handle = try FileHandle(forWritingTo: outputURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = repositoryRoot
        process.standardOutput = handle
        process.standardError = handle
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { finished in continuation.resume(returning: finished.terminationStatus) }
            do { try process.run() } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        try handle.close()
        let output = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
        return Result(status: status, output: output)
    }
}
