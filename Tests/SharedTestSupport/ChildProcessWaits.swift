import Foundation
import Runtime

// Waiting for a child process from async test code without blocking a cooperative thread:
// `waitUntilExit()` and reading a pipe to its end block until the child is done, and with two
// cores two such waits stop every task of the test process (the 28 s stall of issue 14).

extension Process {
    /// Suspends until the process has exited (the blocking wait runs on `BlockingCalls`).
    public func waitForExit() async {
        await BlockingCalls.run { [self] in waitUntilExit() }
    }
}

extension FileHandle {
    /// Reads until end of file — the writer closed it — off the cooperative pool.
    public func readAll() async -> Data {
        await BlockingCalls.run { [self] in readDataToEndOfFile() }
    }
}
