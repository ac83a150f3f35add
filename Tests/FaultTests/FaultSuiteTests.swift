import APNsMock
import Contracts
import DeliveryRecord
import PipelineTestSupport
import DevStack
import Foundation
import MatchDayCheck
import Postgres
import Runtime
import Synchronization
import Testing

/// The fault suite (issue 9): the whole product as real processes (DevStack) replays a real T20
/// with simulated followers — and, issue 42's match day in small, another match live at the same time that every device
/// follows too (`FaultEnvironment.Scale.others`) — and while the first match is live one fault after another hits it — kill -9
/// and restart of each service, a PostgreSQL restart, mock-apns 429/500/503 storms, GOAWAYs and
/// slow answers, and bad fake-sportmonks responses. Afterwards (bounded waits):
/// - a toss storm's follows (`TossStorm`) and an audience that leaves and comes back (`Audience`) along the way;
/// - every follower shows each match's result line and final score as the Cricsheet file has them (so does
///   active_matches.display_state), and its Live Activities ended;
/// - every priority-10 key event the detector emitted (read from `match.events`) after all followers
///   had an active Live Activity reached every follower at least once (alert text of the pushes
///   mock-apns accepted for the device's tokens);
/// - duplicate pushes per device are counted and logged;
/// - issue 42's checker, from APNs' side alone (every push mock-apns accepted or refused, per token in answer order):
///   no token was sent an older state after a newer one, nothing made after a token's final refusal went to it, nothing
///   after an activity's end push, and no payload reached a token twice — except the replay of one request (the same apns-id) whose first copy was accepted
///   during a fault or in the `MatchDayReport.replayMargin` after it (at-least-once: a re-read job or a retried request);
///   the run is kept as a match-day record with its report and freshness chart (`sightscreen check-day`);
/// - nothing remains queued (`QueueDrainCheck`): the push path's consumer groups at lag 0, no dead push `permanent` or
///   `rejected`;
/// - what support reads agrees with what APNs saw (`RecordAgreementRule`): every device's delivery record lists only
///   pushes APNs accepted for it, of the right kind, including the newest, and counts between the distinct and all.
/// Size: `FAULT_SUITE_SCALE=full` or scripts/fault-suite (FaultEnvironment.Scale).
@Suite(.serialized) struct FaultSuiteTests {
    @Test(.timeLimit(.minutes(30))) func realMatchSurvivesEveryFault() async throws {
        try PipelineEnvironment.requireServers()
        let scale = FaultEnvironment.scale
        var options = DevStackOptions(
            binDirectory: try PipelineEnvironment.binDirectory(),
            logDirectory: PipelineEnvironment.stackDirectory.appendingPathComponent("logs/fault"),
            materialDirectory: PipelineEnvironment.stackDirectory.appendingPathComponent("dev"),
            cricsheetDirectory: try PipelineEnvironment.cricsheetDirectory(), matchId: scale.match,
            idOffset: DevStackOptions.freshIdOffset(), speed: scale.speed, devices: scale.devices, ports: try DevPorts.free(),
            kafkaBrokers: PipelineEnvironment.kafkaBrokers, databaseURL: PipelineEnvironment.databaseURL,
            pollIntervalMs: 500, orchestratorIntervalMs: 2000)
        options.otherMatchIds = scale.others
        let logger = Logger(label: "fault-suite", minimumLevel: .info)
        logger.info("fault suite", ["scale": scale.description, "fixtures": options.fixtureIds.map(String.init).joined(separator: ",")])
        let stack = try DevStack(plan: DevStackPlan(options: options), logger: Logger(label: "fault-suite.stack", minimumLevel: .warning))
        let started = ContinuousClock.now
        let outcome: Result<Void, any Error>
        do {
            try await FaultRun(stack: stack, scale: scale, logger: logger).run()
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        let logs = await stack.supervisor.statuses().map(\.logFile)
        await stack.shutdown(grace: .seconds(10))
        logger.info("fault suite done", ["seconds": "\((ContinuousClock.now - started).components.seconds)"])
        if case .failure(let error) = outcome {
            Issue.record("\(error)\nlogs: \(logs.joined(separator: " "))")
        }
    }
}

/// One run of the suite against a started-from-scratch `DevStack`.
struct FaultRun {
    let stack: DevStack
    let scale: FaultEnvironment.Scale
    let logger: Logger

    private struct SimDevice: Decodable {
        struct Activity: Decodable {
            var matchId: String
            var state: String
            var contentState: UnifiedDisplayState
        }
        var deviceId: String
        var userId: String
        var pushToStartToken: String
        var activities: [Activity]
        func activity(_ match: String) -> Activity? { activities.last { $0.matchId == match } }
    }

    func run() async throws {
        // Every replayed match (the primary first; `FaultEnvironment.Scale.others` run alongside it), each followed by
        // every device.
        let fixtures = stack.options.fixtureIds.map(String.init)
        let expected = try stack.options.matchFiles.map(ExpectedFinal.init)
        let simURL = stack.plan.deviceSimulatorURL
        let devices: @Sendable () async throws -> [SimDevice] = { try await DevHTTP(timeout: 5).getJSON(simURL + "/devices") }

        try await stack.prepare()
        try await stack.startServers()
        let collectors = try fixtures.map { try MatchEventsCollector(brokers: stack.options.kafkaBrokers, matchId: $0) }
        defer { Task { for collector in collectors { await collector.stop() } } }
        for collector in collectors { try await collector.start() }
        let events = collectors[0]
        try await stack.waitForScheduledMatch()
        try await stack.startDevices()
        let roster = try await devices().map { Audience.Device(deviceId: $0.deviceId, userId: $0.userId, pushToStartToken: $0.pushToStartToken) }
        // The toss storm's cohort leaves the final before it starts and follows it all at once as it starts.
        let storm = TossStorm(simURL: simURL, match: fixtures[0], devices: roster)
        try await storm.leave(stack: stack)
        let mock = try MockAPNsControl(port: stack.options.ports.mockAPNs, caFile: stack.plan.material.certificateFile.path)
        let ledger = PushLedger(mock: mock, simURL: simURL)
        ledger.start()
        try? await Task.sleep(for: .seconds(2))
        try await stack.startMatch()
        let stormFollows = try await storm.follow(stack: stack)
        logger.info("toss storm", ["match": fixtures[0], "follows": String(stormFollows.count)])
        try await stack.waitFor("an active Live Activity of \(fixtures.count) match(es) on all \(scale.devices) devices", timeout: .seconds(120)) {
            let all = try await devices()
            return all.count == scale.devices && all.allSatisfy { device in fixtures.allSatisfy { device.activity($0)?.state == "active" } }
        }
        let allActiveAt = Int64(Date().timeIntervalSince1970 * 1000)
        logger.info("all followers active", ["devices": String(scale.devices), "matches": fixtures.joined(separator: ",")])

        // The faults, one after another, a few seconds apart, while the primary match is live; in the first round the
        // audience of the last match comes and goes between them.
        let injector = FaultInjector(stack: stack, mock: mock, events: events, logger: logger)
        var audience = Audience(simURL: simURL, match: fixtures[fixtures.count - 1], devices: roster)
        var observations: [FaultObservation] = []
        rounds: for round in 1...scale.rounds {
            for (index, fault) in Fault.script.enumerated() {
                if round > 1, (try? await stack.replayStatus())?.finished == true { break rounds }
                observations.append(try await injector.inject(fault))
                if round == 1 { try await audience.perform(afterFault: index, stack: stack, logger: logger) }
                try await Task.sleep(for: .seconds(3))
            }
        }
        let audienceDone = audience
        // The devices that must show `fixture`'s final state at the end (all but those the audience left out).
        let showsFinal: @Sendable (SimDevice, String) -> Bool = { device, fixture in
            fixture != audienceDone.match || audienceDone.expectation(device.deviceId) == .final
        }

        // Each match ends and the pipeline drains: every follower shows each match's result and final score.
        for (fixture, expected) in zip(fixtures, expected) {
            try await stack.waitFor("the replay of \(fixture) finished", timeout: .seconds(Int64(600 / scale.speed) + 60)) {
                try await stack.replayStatus(fixture: Int(fixture)).finished
            }
            let finalState = LockedValue<UnifiedDisplayState?>(nil)
            let lacking = LockedValue<[String]>([])
            do {
                try await stack.waitFor("the final state of \(fixture) on every follower", timeout: .seconds(180)) {
                    let rows = try await stack.postgres.query("SELECT display_state::text FROM active_matches WHERE match_id = $1", [fixture])
                    guard let text = try rows.first?.decode(0, as: String.self) else { return false }
                    let state = try JSONDecoder().decode(UnifiedDisplayState.self, from: Data(text.utf8))
                    guard state.resultLine != nil else { return false }
                    finalState.withLock { $0 = state }
                    let behind = try await devices().filter { showsFinal($0, fixture) && !Self.showsResult($0.activity(fixture), expected) }
                    lacking.withLock { $0 = behind.map { "\($0.deviceId) (\($0.activity(fixture).map { "\($0.state): \($0.contentState.lockScreen.headline)" } ?? "no activity"))" } }
                    return behind.isEmpty
                }
            } catch {
                throw PipelineTestFailure("\(error); devices without it: \(lacking.withLock { $0 }.joined(separator: ", ")); audience: \(audienceDone.performed)")
            }
            let final = try #require(finalState.withLock { $0 })
            #expect(final.resultLine == expected.result, "\(fixture): result line \(final.resultLine ?? "nil") vs Cricsheet \(expected.result)")
            #expect(final.lockScreen.headline.contains(expected.innings.last!),
                    "\(fixture): headline \(final.lockScreen.headline) shows the final score \(expected.innings.last!)")
        }

        // Every follower's Live Activity of every match ended with the match (its end push came, after the final state);
        // the audience's leavers' by their unfollow or dismissal.
        let notEnded = LockedValue<[String]>([])
        try? await stack.waitFor("every follower's activities ended", timeout: .seconds(120)) {
            let open = try await devices().flatMap { device in
                fixtures.filter { fixture in
                    let state = device.activity(fixture)?.state
                    // An activity the user ended goes away at once (the end push's dismissal date is now) or on the device.
                    return showsFinal(device, fixture) ? state != "ended" : !["dismissed", "ended"].contains(state ?? "")
                }
                    .map { "\(device.deviceId) \($0): \(device.activity($0)?.state ?? "none")" }
            }
            notEnded.withLock { $0 = open }
            return open.isEmpty
        }
        #expect(notEnded.withLock { $0 }.isEmpty, "activities not ended with their match: \(notEnded.withLock { $0 })")

        // Every key event emitted after all followers were active reached every follower.
        try? await Task.sleep(for: .seconds(3))
        await ledger.refresh()
        await ledger.stop()
        for collector in collectors { await collector.stop() }
        let required = zip(fixtures, collectors).flatMap { fixture, collector in
            collector.keyEvents.filter { $0.emittedAt >= allActiveAt }.map { (fixture: fixture, event: $0) }
        }
        let reports = ledger.reports()
        let finalDevices = try await devices()
        var missing: [String] = []
        for device in finalDevices {
            for (fixture, expected) in zip(fixtures, expected) where showsFinal(device, fixture) {
                #expect(Self.showsResult(device.activity(fixture), expected),
                        "\(device.deviceId) shows \(fixture)'s result and final score: \(String(describing: device.activity(fixture)?.contentState))")
            }
            let alerts = reports[device.deviceId]?.alerts ?? []
            // A device that left the audience's match for a while is not owed its key events.
            for (fixture, event) in required where !alerts.contains(event.alertKey)
                && !(fixture == audienceDone.match && audienceDone.leftAtSomePoint.contains(device.deviceId)) {
                missing.append("\(device.deviceId): \(event.kind) \(event.eventId) \"\(event.title): \(event.body)\"")
            }
        }
        #expect(missing.isEmpty, "key events lost: \(missing.count)\n\(missing.joined(separator: "\n"))")
        #expect(required.count > 0, "the faults ran while key events were emitted")

        // The figures.
        let duplicates = reports.values.map(\.duplicates)
        for report in reports.values.sorted(by: { $0.deviceId < $1.deviceId }) {
            logger.info("device", ["device": report.deviceId, "pushes": String(report.pushes), "alerts": String(report.alerts.count),
                                   "duplicateIDs": String(report.duplicateIDs), "duplicatePayloads": String(report.duplicatePayloads),
                                   "duplicateKinds": report.duplicateKinds.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                                       .joined(separator: ",")])
        }
        for observation in observations { logger.info("observed", ["fault": observation.description]) }
        logger.info("audience of \(audienceDone.match)", ["steps": audienceDone.performed.joined(separator: "; ")])
        #expect(audienceDone.steps.isEmpty || audienceDone.performed.count == audienceDone.steps.count, "the audience's steps ran: \(audienceDone.performed)")
        logger.info("fault suite figures", [
            "devices": String(scale.devices), "matches": String(fixtures.count), "speed": String(scale.speed), "faults": String(observations.count),
            "pushesAccepted": String(ledger.totalPushes), "matchEvents": String(collectors.map(\.eventsSeen).reduce(0, +)),
            "keyEvents": String(collectors.map(\.keyEvents.count).reduce(0, +)), "keyEventsRequired": String(required.count),
            "keyEventCopies": String(collectors.map(\.keyEventCopies).reduce(0, +)), "keyEventDeliveriesMissing": String(missing.count),
            "duplicatesTotal": String(duplicates.reduce(0, +)), "duplicatesMaxPerDevice": String(duplicates.max() ?? 0),
        ])
        #expect(duplicates.allSatisfy { $0 >= 0 && $0 < Int.max }, "duplicates are finite")
        try await checkMatchDay(mock, faults: observations, actions: stormFollows + audienceDone.actions)

        // Nothing remains queued: the push path's groups at lag 0, and no dead push that is a bug, of any match.
        for fixture in fixtures {
            let drain = try await QueueDrainCheck(options: stack.options, logger: logger).run(matchId: fixture)
            logger.info("queues at the end", [
                "match": fixture, "behind": drain.behind.joined(separator: "; "), "deadRecordsRead": String(drain.deadRead),
                "deadPushes": drain.deadByCause.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)=\($0.value)" }.joined(separator: ","),
            ])
            #expect(drain.behind.isEmpty, "push-path groups still behind at the end: \(drain.behind)")
            #expect(drain.deadAssigned, "push.dead was read (its partitions assigned)")
            #expect(drain.unexplained.isEmpty, "dead pushes of \(fixture) that are bugs: \(drain.unexplained)")
        }

        // What support reads agrees with what APNs saw (the record's groups are at lag 0 by now), for every match.
        for fixture in fixtures {
            try await checkDeliveryRecord(mock, owners: ledger.owners, tokenMatches: ledger.tokenMatches, matchId: fixture)
        }
    }

    /// The device's activity shows the match's result and final score as the Cricsheet file has them (not the services'
    /// own final state: a feed correction after the end push may still change fields such as `updatedAt` there, which no
    /// push can carry to an ended activity).
    private static func showsResult(_ activity: SimDevice.Activity?, _ expected: ExpectedFinal) -> Bool {
        guard let state = activity?.contentState else { return false }
        return state.resultLine == expected.result && state.lockScreen.headline.contains(expected.innings.last!)
    }

    /// Issue 42's invariant 6 (`RecordAgreementRule`): every device's delivery record row of `matchId` against mock-apns's
    /// accepted pushes of that match for the device's tokens: those to the match's activity update tokens
    /// (`tokenMatches`), and those to a token every match shares (push-to-start, the device's own) whose payload names it.
    func checkDeliveryRecord(_ mock: MockAPNsControl, owners: [String: String], tokenMatches: [String: String], matchId: String) async throws {
        let all = try JSONDecoder().decode([MockAPNsDelivery].self, from: Data(try await mock.send("GET", "/mock/deliveries").body))
        let accepted = all.filter { delivery in
            tokenMatches[delivery.token].map { $0 == matchId } ?? delivery.payload.contains(#""matchId":"\#(matchId)""#)
        }
        let store = DeliveryRecordStore(database: stack.postgres)
        let keys = try await stack.postgres.query(
            "SELECT user_id, device_id FROM push_deliveries WHERE match_id = $1 AND user_id <> '' ORDER BY device_id", [matchId])
        var records: [RecordAgreementRule.RecordedDevice] = []
        for key in keys {
            guard let row = try await store.row(matchId: matchId, userId: try key.decode(0, as: String.self),
                                                deviceId: try key.decode(1, as: String.self)) else { continue }
            let entries = row.recent + [row.lastStart, row.lastUpdate, row.lastKeyEvent, row.lastEnd].compactMap { $0 }
            records.append(RecordAgreementRule.RecordedDevice(
                deviceId: row.deviceId, accepted: row.accepted,
                pushes: entries.filter { $0.result == .accepted }.compactMap { entry in entry.apnsId.map { ($0, entry.kind.rawValue) } }))
        }
        let report = RecordAgreementRule().check(records: records, deliveries: accepted, owner: { owners[$0] })
        logger.info("delivery record against APNs", [
            "devices": String(report.devices), "rows": String(records.count), "accepted": String(report.accepted),
            "violations": String(report.violations.count),
        ])
        #expect(report.devices > 0, "pushes were attributed to devices")
        #expect(report.violations.isEmpty, "the delivery record disagrees with APNs:\n\(report.violations.map(\.description).joined(separator: "\n"))")
    }

    /// Issue 42's checker over the whole run, as `sightscreen check-day` runs it: the run's record (every push mock-apns
    /// accepted or refused, the feed's timeline, the faults, the Cricsheet files) is written to `logs/fault/match-day`
    /// with the report, report.json and freshness.svg beside it; the push-log rules must find nothing (the faults'
    /// windows excusing replays of one request), and every match must have had its freshness measured.
    func checkMatchDay(_ mock: MockAPNsControl, faults: [FaultObservation], actions: [MatchDayAction]) async throws {
        let accepted = try JSONDecoder().decode([MockAPNsDelivery].self, from: Data(try await mock.send("GET", "/mock/deliveries").body))
        let refused = try JSONDecoder().decode([MockAPNsRefusal].self, from: Data(try await mock.send("GET", "/mock/refusals").body))
        let record = MatchDayRecord(
            matches: zip(stack.options.fixtureIds, stack.options.matchFiles).map { .init(fixture: String($0), cricsheetFile: $1.path) },
            deliveries: accepted, refusals: refused, served: try await stack.servedPositions(),
            faults: faults.map { MatchDayFault(kind: $0.fault, start: $0.window.lowerBound, end: $0.window.upperBound) }, actions: actions)
        let directory = stack.options.logDirectory.appendingPathComponent("match-day")
        // Files written and read, a few MB: on BlockingCalls, not on the cooperative pool.
        let report = try await BlockingCalls.run {
            try record.write(to: directory)
            let report = try MatchDayReport.check(record)
            try report.write(to: directory)
            return report
        }
        let pushLog = report.pushLog
        logger.info("push log checked", [
            "tokens": String(pushLog.tokens), "accepted": String(pushLog.accepted), "refused": String(pushLog.refused),
            "excusedReplays": String(pushLog.excusedDuplicates), "violations": String(pushLog.violations.count), "record": directory.path,
            "startsAfterFollow": String(report.starts.latency.count), "startAfterFollowMaxMs": String(report.starts.latency.max),
        ])
        for match in report.freshness.matches {
            logger.info("freshness", [
                "match": match.fixture, "outsideP50Ms": String(match.outside.p50), "outsideP99Ms": String(match.outside.p99),
                "outsideN": String(match.outside.count), "insideP50Ms": String(match.inside.p50), "insideP99Ms": String(match.inside.p99),
                "insideN": String(match.inside.count), "unmapped": String(match.unmapped),
            ])
            #expect(match.outside.count + match.inside.count > 0,
                    "freshness of \(match.fixture) was measured (pushes whose content showed a ball the feed served): \(match)")
        }
        #expect(pushLog.accepted > 0 && pushLog.tokens > 0, "the mock recorded the run's pushes: \(pushLog)")
        #expect(report.starts.latency.count == actions.filter { $0.kind == .follow }.count,
                "every follow of a live match (the toss storm's, the audience's) got its start: \(report.starts)")
        #expect(report.violations.isEmpty, "\(report.violations.count) violations:\n\(report.violations.prefix(40).map(\.description).joined(separator: "\n"))")
    }
}
