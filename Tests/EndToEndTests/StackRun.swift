import DevStack
import Testing

extension DevStack {
    /// Runs `body` on the stack, always shuts the stack down, and records a failure of `body` with the services'
    /// log files (what a failed run needs to be read).
    func runRecordingFailure(_ body: (DevStack) async throws -> Void) async {
        let outcome: Result<Void, any Error>
        do {
            try await body(self)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        let logs = await supervisor.statuses().map(\.logFile)
        await shutdown(grace: .seconds(10))
        if case .failure(let error) = outcome { Issue.record("\(error)\nlogs: \(logs.joined(separator: " "))") }
    }
}
