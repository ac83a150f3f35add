import Runtime
import ServiceKit
import Testing

/// `PeriodicService`: runs at once and then every interval, survives failing runs, stops on shutdown.
@Suite struct PeriodicServiceTests {
    static let logger = Logger(label: "periodic-test", minimumLevel: .error)

    struct Failure: Error {}

    /// Runs `service` in a group until `ready` holds, then shuts the group down; returns the exit code.
    private func runUntil(_ service: PeriodicService, _ ready: @escaping @Sendable () async -> Bool) async -> Int32 {
        let group = ServiceGroup(services: [service], signal: ShutdownSignal(signals: []), logger: Self.logger, grace: .seconds(10),
                                 hardStop: nil)
        let run = Task { await group.run() }
        let reached = await ready()
        #expect(reached)
        group.triggerGracefulShutdown()
        return await run.value
    }

    @Test func runsAtOnceThenEveryIntervalAndFailuresDoNotEndIt() async {
        let runs = AsyncCondition(0)
        let metrics = MetricsRegistry()
        let service = PeriodicService("sweep", every: .milliseconds(20), logger: Self.logger, metrics: metrics) {
            let run = runs.update { $0 += 1; return $0 }
            if run.isMultiple(of: 2) { throw Failure() }
        }
        let code = await runUntil(service) { await runs.wait(until: { $0 >= 6 }, timeout: .seconds(60)) }
        #expect(code == 0, "a failing run does not end the service")
        #expect(service.failureCount >= 3)
        #expect(metrics.render().contains("periodic_failures_total{service=\"sweep\"}"))
    }

    @Test func theFirstRunIsImmediate() async {
        let runs = AsyncCondition(0)
        let service = PeriodicService("refresh", every: .seconds(3600), logger: Self.logger) { runs.update { $0 += 1 } }
        let started = ContinuousClock.now
        let code = await runUntil(service) { await runs.wait(until: { $0 == 1 }, timeout: .seconds(60)) }
        #expect(code == 0)
        // Far below the hour, with room for a busy machine (a 5 s bound failed in CI's parallel phase).
        #expect(ContinuousClock.now - started < .seconds(300), "the hour-long pause ended on shutdown")
        #expect(runs.value == 1)
    }

    @Test func aRunInProgressIsCancelledOnShutdownByDefault() async {
        let state = AsyncCondition<[String]>([])
        let service = PeriodicService("poll", every: .seconds(1), logger: Self.logger) {
            state.update { $0.append("started") }
            do { try await Task.sleep(for: .seconds(3600)) } catch { state.update { $0.append("cancelled") } }
        }
        let code = await runUntil(service) { await state.wait(until: { $0.contains("started") }, timeout: .seconds(60)) }
        #expect(code == 0)
        #expect(state.value == ["started", "cancelled"])
        #expect(service.failureCount == 0, "a run cancelled by shutdown is not a failure")
    }

    @Test func aRunInProgressFinishesWhenAskedTo() async {
        let state = AsyncCondition<[String]>([])
        let service = PeriodicService("flush", every: .seconds(1), logger: Self.logger, cancelRunOnShutdown: false) {
            state.update { $0.append("started") }
            try await Task.sleep(for: .milliseconds(200))
            state.update { $0.append("finished") }
        }
        let code = await runUntil(service) { await state.wait(until: { $0.contains("started") }, timeout: .seconds(60)) }
        #expect(code == 0)
        #expect(state.value == ["started", "finished"], "the run in hand finished and no other started")
    }
}
