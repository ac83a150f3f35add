import Foundation
import Runtime
import ServiceKit
import Synchronization
import Testing

/// The group's shutdown order, its one deadline and its reaction to a failing service — in
/// process, with signals only `trigger` fires and no hard exit.
@Suite struct ServiceGroupTests {
    static let logger = Logger(label: "service-group-test", minimumLevel: .error)

    /// What the services did, in order.
    final class Journal: Sendable {
        private let entries = AsyncCondition<[String]>([])
        func add(_ entry: String) { entries.update { $0.append(entry) } }
        var all: [String] { entries.value }
        /// Waits until `entry` was written (bounded).
        func waitFor(_ entry: String) async -> Bool {
            await entries.wait(until: { $0.contains(entry) }, timeout: .seconds(20))
        }
    }

    /// Waits for its graceful shutdown, spends `finishing` "finishing up", then returns.
    struct Recorder: Service {
        let name: String
        let journal: Journal
        var finishing: Duration = .zero

        func run() async throws {
            journal.add("\(name) running")
            try await GracefulShutdown.wait()
            journal.add("\(name) asked")
            if finishing > .zero { try? await Task.sleep(for: finishing) }
            journal.add("\(name) returned")
        }
    }

    @Test func servicesStopOneAtATimeLastListedFirst() async {
        let journal = Journal()
        let readiness = Readiness()
        readiness.set("started", true)
        let group = ServiceGroup(
            services: [
                Recorder(name: "pool", journal: journal),
                Recorder(name: "consumer", journal: journal, finishing: .milliseconds(50)),
                Recorder(name: "http", journal: journal, finishing: .milliseconds(50)),
            ],
            signal: ShutdownSignal(signals: []), readiness: readiness, logger: Self.logger, grace: .seconds(30), hardStop: nil)
        let run = Task { await group.run() }
        let poolRunning = await journal.waitFor("pool running")
        let httpRunning = await journal.waitFor("http running")
        #expect(poolRunning && httpRunning)
        group.triggerGracefulShutdown()
        let code = await run.value
        #expect(code == 0)
        #expect(!readiness.isReady && readiness.unmet == ["shutdown"])
        let stops = journal.all.filter { !$0.hasSuffix("running") }
        #expect(stops == [
            "http asked", "http returned", "consumer asked", "consumer returned", "pool asked", "pool returned",
        ], "each service is asked only once the one listed after it returned: \(stops)")
    }

    @Test func readinessTurnsFalseBeforeAnyServiceIsAsked() async {
        let readiness = Readiness()
        readiness.set("started", true)
        let sawReady = LockedValue<Bool?>(nil)
        let service = ClosureService("probe") {
            try await GracefulShutdown.wait()
            sawReady.withLock { $0 = readiness.isReady }
        }
        let group = ServiceGroup(
            services: [service], signal: ShutdownSignal(signals: []), readiness: readiness, logger: Self.logger,
            grace: .seconds(30), hardStop: nil)
        let run = Task { await group.run() }
        group.triggerGracefulShutdown()
        let code = await run.value
        #expect(code == 0)
        #expect(sawReady.withLock { $0 } == false, "the service saw /ready already false when asked to stop")
    }

    @Test func twoServicesIgnoringShutdownAreEachCancelledAfterTheirGraceAndTheGroupReturns() async {
        let journal = Journal()
        func stubborn(_ name: String) -> ClosureService {
            ClosureService(name) {
                journal.add("\(name) running")
                while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(20)) }
                journal.add("\(name) cancelled")
            }
        }
        let group = ServiceGroup(
            services: [stubborn("first"), stubborn("second")], signal: ShutdownSignal(signals: []),
            logger: Self.logger, grace: .milliseconds(300), hardStop: nil)
        let returned = AsyncCondition<Int32?>(nil)
        let run = Task {
            let code = await group.run()
            returned.update { $0 = code }
        }
        #expect(await journal.waitFor("first running"))
        #expect(await journal.waitFor("second running"))
        group.triggerGracefulShutdown()
        // Before, the one asked after the deadline had none of its own: the group waited for it for ever.
        let done = await returned.wait(until: { $0 != nil }, timeout: .seconds(20))
        #expect(done, "the group returned once each stubborn service had been cancelled after its grace")
        if !done { run.cancel() }
        #expect(returned.value == 0)
        #expect(journal.all.filter { $0.hasSuffix("cancelled") } == ["second cancelled", "first cancelled"])
    }

    @Test func aServiceIgnoringShutdownIsCancelledAtTheDeadlineAndTheRestStillStop() async {
        let journal = Journal()
        let stubborn = ClosureService("stubborn") {
            journal.add("stubborn running")
            // Ignores graceful shutdown; only cancellation (the deadline) ends it.
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(20)) }
            journal.add("stubborn cancelled")
        }
        let group = ServiceGroup(
            services: [Recorder(name: "pool", journal: journal), stubborn], signal: ShutdownSignal(signals: []),
            logger: Self.logger, grace: .milliseconds(300), hardStop: nil)
        let run = Task { await group.run() }
        #expect(await journal.waitFor("stubborn running"))
        let started = ContinuousClock.now
        group.triggerGracefulShutdown()
        let code = await run.value
        #expect(code == 0)
        let took = ContinuousClock.now - started
        #expect(took >= .milliseconds(300), "cancelled at the deadline, not before (\(took))")
        #expect(journal.all.contains("stubborn cancelled"))
        #expect(journal.all.last == "pool returned", "the pool was still released, after its user: \(journal.all)")
    }

    struct Failure: Error {}

    @Test func aFailingServiceShutsTheOthersDownInOrderAndExitsOne() async {
        let journal = Journal()
        let failing = ClosureService("loop") {
            journal.add("loop failing")
            throw Failure()
        }
        let group = ServiceGroup(
            services: [Recorder(name: "pool", journal: journal), Recorder(name: "producer", journal: journal), failing],
            signal: ShutdownSignal(signals: []), logger: Self.logger, grace: .seconds(30), hardStop: nil)
        let code = await group.run()
        #expect(code == 1)
        let stops = journal.all.filter { $0.hasSuffix("asked") }
        #expect(stops == ["producer asked", "pool asked"], "\(stops)")
    }

    @Test func cancellingOnRequestCancelsWorkWithNothingToFinish() async {
        let journal = Journal()
        let gauge = ClosureService("gauge", cancelOnShutdown: true) {
            journal.add("gauge running")
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(60)) }
            journal.add("gauge cancelled")
        }
        let group = ServiceGroup(
            services: [gauge], signal: ShutdownSignal(signals: []), logger: Self.logger, grace: .seconds(30), hardStop: nil)
        let run = Task { await group.run() }
        #expect(await journal.waitFor("gauge running"))
        let started = ContinuousClock.now
        group.triggerGracefulShutdown()
        let code = await run.value
        #expect(code == 0)
        #expect(ContinuousClock.now - started < .seconds(20), "stopped long before the grace period")
        #expect(journal.all.contains("gauge cancelled"))
    }

    @Test func parentWatchVariableMatchesTheSupervisors() {
        #expect(ParentWatch.variable == "SIGHTSCREEN_PARENT_PID")
    }
}

/// The wait primitive behind the drains: resumed by the update, cancellable, bounded.
@Suite struct AsyncConditionTests {
    @Test func aWaiterIsResumedByTheUpdateThatMakesItsConditionHold() async {
        let count = AsyncCondition(2)
        let waiter = Task { await count.wait(until: { $0 == 0 }) }
        count.update { $0 -= 1 }
        count.update { $0 -= 1 }
        #expect(await waiter.value)
    }

    @Test func claimsTakeOneSlotEachInArrivalOrder() async {
        let free = AsyncCondition(0)
        let first = Task { await free.claim { slots in guard slots > 0 else { return false }; slots -= 1; return true } }
        // A positive barrier would need a waiter count; a claim that can never succeed is enough
        // to show that one slot feeds one claim.
        free.update { $0 += 1 }
        #expect(await first.value)
        #expect(free.value == 0)
    }

    @Test func timeoutAndCancellationReturnFalse() async {
        let never = AsyncCondition(false)
        let held = await never.wait(until: { $0 }, timeout: .milliseconds(50))
        #expect(!held)
        let waiter = Task { await never.wait(until: { $0 }) }
        waiter.cancel()
        let resumed = await waiter.value
        #expect(!resumed)
    }
}
