import Foundation
import Runtime

/// Starts the dev stack's processes from the build's bin directory, waits for each to be ready,
/// restarts one on demand (kill -9 and start again) and stops them all in reverse start order:
/// SIGTERM, a grace period, then SIGKILL. It only ever signals processes it spawned itself.
public actor DevSupervisor {
    /// A process as the supervisor reports it.
    public struct Status: Sendable, Equatable {
        public var name: String
        public var pid: Int32
        public var running: Bool
        public var logFile: String
    }

    public let binDirectory: URL
    public let logDirectory: URL
    private let logger: Logger
    private var processes: [ManagedProcess] = []
    /// Where started processes are recorded for the next run's leftover check.
    public nonisolated let leftovers: DevLeftovers
    private var checkedLeftovers = false

    /// - Parameters:
    ///   - binDirectory: where the products are (`swift build --show-bin-path`).
    ///   - logDirectory: where `<name>.log` files go (e.g. `.stack/logs`).
    public init(binDirectory: URL, logDirectory: URL, logger: Logger = Logger(label: "dev-stack")) {
        self.binDirectory = binDirectory
        self.logDirectory = logDirectory
        self.logger = logger
        leftovers = DevLeftovers(logDirectory: logDirectory)
    }

    /// Fails when processes an earlier supervisor started (recorded in `leftovers.file`) still
    /// run; checked once, before the first start.
    public func checkForLeftovers() throws(DevStackError) {
        guard !checkedLeftovers else { return }
        let running = leftovers.running()
        guard running.isEmpty else { throw .leftovers(running, pidFile: leftovers.file.path) }
        checkedLeftovers = true
        leftovers.clear()
    }

    /// Spawns `spec` and waits until its readiness probe passes.
    /// - Throws: `DevStackError` (not built, exited early, not ready in time); a process that
    ///   never became ready is killed before the error is thrown.
    public func start(_ spec: DevProcessSpec) async throws(DevStackError) {
        guard !processes.contains(where: { $0.spec.name == spec.name && $0.isRunning }) else {
            throw .spawnFailed(name: spec.name, reason: "already running")
        }
        try checkForLeftovers()
        let process = try ManagedProcess(spec: spec, binDirectory: binDirectory,
                                         logFile: logDirectory.appendingPathComponent("\(spec.name).log"))
        if let executable = process.executableURL { leftovers.record(pid: process.pid, executable: executable) }
        processes.removeAll { $0.spec.name == spec.name }
        processes.append(process)
        logger.info("started", ["process": spec.name, "pid": String(process.pid), "log": process.logFile.path])
        do {
            try await Self.waitReady(process)
        } catch {
            process.send(SIGKILL)
            _ = await process.waitForExit(timeout: .seconds(5))
            throw error
        }
        logger.info("ready", ["process": spec.name])
    }

    private static func waitReady(_ process: ManagedProcess) async throws(DevStackError) {
        let spec = process.spec
        let deadline = ContinuousClock.now + spec.readyTimeout
        let http = DevHTTP(timeout: 2)
        while true {
            guard process.isRunning else {
                _ = await process.waitForExit(timeout: .seconds(1))
                throw .exitedEarly(name: spec.name, status: process.terminationStatus, logTail: await process.logTail())
            }
            switch spec.readiness {
            case .none: return
            case .http(let url):
                if let reply = try? await http.get(url), reply.status == 200 { return }
            case .logLine(let text):
                if await process.logContains(text) { return }
            }
            if Task.isCancelled { throw .cancelled(waitingFor: "\(spec.name) ready") }
            guard ContinuousClock.now < deadline else {
                throw .notReady(name: spec.name, probe: "\(spec.readiness)", logTail: await process.logTail())
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Stops every process, last started first: SIGTERM, up to `grace` to exit, then SIGKILL.
    public func stopAll(grace: Duration = .seconds(10)) async {
        for process in processes.reversed() {
            await Self.stop(process, grace: grace, logger: logger)
        }
        if processes.allSatisfy({ !$0.isRunning }) { leftovers.clear() }
        processes.removeAll()
    }

    /// Stops one process by name (SIGTERM, grace, SIGKILL).
    public func stop(_ name: String, grace: Duration = .seconds(10)) async throws(DevStackError) {
        await Self.stop(try find(name), grace: grace, logger: logger)
    }

    private static func stop(_ process: ManagedProcess, grace: Duration, logger: Logger) async {
        guard process.isRunning else {
            process.closeLog()
            return
        }
        process.send(SIGTERM)
        if await process.waitForExit(timeout: grace) {
            logger.info("stopped", ["process": process.spec.name, "status": String(process.terminationStatus)])
            return
        }
        logger.warning("no exit after SIGTERM; SIGKILL", ["process": process.spec.name, "graceMs": "\(grace)"])
        process.send(SIGKILL)
        _ = await process.waitForExit(timeout: .seconds(5))
    }

    /// `kill -9` the named process (no grace), then start it again with the same spec and wait
    /// until it is ready.
    public func killAndRestart(_ name: String) async throws(DevStackError) {
        let process = try find(name)
        process.send(SIGKILL)
        _ = await process.waitForExit(timeout: .seconds(10))
        logger.info("killed (SIGKILL)", ["process": name])
        try await start(process.spec)
    }

    /// A graceful restart of the named process, as a rolling deploy does: SIGTERM (SIGKILL after `grace`), then start it
    /// again with the same spec and wait until it is ready.
    public func restart(_ name: String, grace: Duration = .seconds(10)) async throws(DevStackError) {
        let process = try find(name)
        await Self.stop(process, grace: grace, logger: logger)
        try await start(process.spec)
    }

    /// `kill -9` the named process without restarting it.
    public func kill9(_ name: String) async throws(DevStackError) {
        let process = try find(name)
        process.send(SIGKILL)
        _ = await process.waitForExit(timeout: .seconds(10))
    }

    /// Every managed process in start order.
    public func statuses() -> [Status] {
        processes.map { Status(name: $0.spec.name, pid: $0.pid, running: $0.isRunning, logFile: $0.logFile.path) }
    }

    /// Names of processes that exited although nobody stopped them.
    public func exited() -> [String] {
        processes.filter { !$0.isRunning }.map(\.spec.name)
    }

    /// "name: exit 0" / "name: signal 9 (Killed)" for each process that exited although nobody
    /// stopped it — a clean exit after "shutdown requested" means someone sent it SIGTERM.
    public func exitReports() -> [String] {
        processes.filter { !$0.isRunning }.map { "\($0.spec.name) (pid \($0.pid)): \($0.exitDescription)" }
    }

    /// The log file of `name`.
    public func logFile(_ name: String) throws(DevStackError) -> URL { try find(name).logFile }

    /// The last lines of `name`'s log.
    public func logTail(_ name: String, lines: Int = 25) async throws(DevStackError) -> String { try await find(name).logTail(lines: lines) }

    private func find(_ name: String) throws(DevStackError) -> ManagedProcess {
        guard let process = processes.last(where: { $0.spec.name == name }) else { throw .unknownProcess(name: name) }
        return process
    }
}
