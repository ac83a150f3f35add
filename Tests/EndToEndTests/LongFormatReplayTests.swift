import Contracts
import CricsheetReplay
import PipelineTestSupport
import DevStack
import Foundation
import Runtime
import SharedTestSupport
import Synchronization
import Testing

/// Long formats through the real processes (issue 15): a whole Test (all 1,705 deliveries of 1152848) and a
/// whole ODI (1144504, a D/L result) replayed fast by fake-sportmonks → poller → Kafka → detector →
/// la-coordinator → apns-sender → mock-apns → device-sim, two followers' devices each. Before, a Test froze
/// after ~600 deliveries (a whole fixture per message passed Kafka's 1 MB limit); now every message stays under
/// its bound, and every device ends with the final display state, the result and the end push. The Test is
/// replayed with its days: each day's activities end at stumps and new ones start when play resumes. The Hundred
/// (1355593, women's, 100 balls a side in sets of five; issue 32) ends on every device in balls, never in overs.
@Suite(.serialized) struct LongFormatReplayTests {
    /// (match, deliveries per second of replay, steps each break is held, after how many deliveries the poller
    /// and the detector are killed and restarted: nil for none). The Test's lunch and tea last 1.6 s and its
    /// stumps 4.8 s, several polls.
    static let replays: [(match: Int, speed: Double, breakSteps: Int, restartAt: Int?)] = [
        (1152848, 25, 40, nil), (1144504, 15, 5, 250), (1355593, 15, 5, nil),
    ]

    @Test(.serialized, .timeLimit(.minutes(15)), arguments: replays.map(\.match))
    func aWholeMatchReachesEveryDevice(match: Int) async throws {
        try PipelineEnvironment.requireServers()
        let replay = Self.replays.first { $0.match == match }!
        let speed = replay.speed
        let options = DevStackOptions(
            binDirectory: try PipelineEnvironment.binDirectory(),
            logDirectory: PipelineEnvironment.stackDirectory.appendingPathComponent("logs/long-\(match)"),
            materialDirectory: PipelineEnvironment.stackDirectory.appendingPathComponent("dev"),
            cricsheetDirectory: try PipelineEnvironment.cricsheetDirectory(), matchId: match,
            idOffset: DevStackOptions.freshIdOffset(), speed: speed, breakSteps: replay.breakSteps, devices: 2,
            ports: try DevPorts.free(),
            kafkaBrokers: PipelineEnvironment.kafkaBrokers, databaseURL: PipelineEnvironment.databaseURL,
            pollIntervalMs: 500, orchestratorIntervalMs: 2000)
        let stack = try DevStack(plan: DevStackPlan(options: options), logger: Logger(label: "long", minimumLevel: .warning))
        let started = ContinuousClock.now
        await stack.runRecordingFailure { try await run($0, restartAt: replay.restartAt) }
        let elapsed = ContinuousClock.now - started
        Logger(label: "long").info("replayed through the pipeline", ["match_id": String(match), "seconds": "\(elapsed.components.seconds)"])
    }

    /// Multi-day activities (item 3), on the match's first day: the replay is held at day 1's close of play
    /// (paused from its start until both activities run, then moved onto it: the detector gets the day as
    /// one catch-up), where both devices' activities end showing "Stumps · Day 1" and both rows are day_end;
    /// once play resumes each device gets a new push-started activity for day 2.
    func closeOfDayOne(_ stack: DevStack, sim: DeviceSimClient, days: MatchDays) async throws {
        let fixture = String(stack.options.fixtureId)
        let stumps = days.deliveriesPerDay
        let paused = try await stack.replayStatus().deliveries
        try #require(paused < stumps, "paused at \(paused) deliveries, past day 1's close at \(stumps): the replay outran the test")
        try await stack.controlReplay("seek", json: #"{"delivery": \#(stumps), "phase": "stumps"}"#)
        try await stack.waitFor("day 1's close of play on both devices, their activities ended", timeout: .seconds(60)) {
            try await sim.devices().allSatisfy { device in
                guard let activity = device.activity(fixture) else { return false }
                return ["ended", "dismissed"].contains(activity.state) && activity.contentState.statusText.hasPrefix("Stumps · Day 1 · ")
            }
        }
        try await stack.waitFor("both rows ended for the day", timeout: .seconds(30)) {
            try await stack.count("SELECT count(*) FROM live_activities WHERE match_id = $1 AND end_reason = 'day_end'") == 2
        }
        let dayOne = Dictionary(uniqueKeysWithValues: try await sim.devices().map { ($0.deviceId, $0.activity(fixture)?.token) })
        try await stack.controlReplay("resume")
        try await stack.waitFor("a new activity for day 2 on both devices", timeout: .seconds(90)) {
            try await sim.devices().allSatisfy { device in
                guard let activity = device.activity(fixture), activity.state == "active" else { return false }
                return activity.token != nil && activity.token != dayOne[device.deviceId] ?? nil
                    && activity.contentState.statusText.contains("Day 2")
            }
        }
    }

    func run(_ stack: DevStack, restartAt: Int?) async throws {
        let fixture = String(stack.options.fixtureId)
        let expected = try ExpectedFinal(stack.options.matchFile)
        let days = MatchDays(match: try CricsheetMatch.load(contentsOf: stack.options.matchFile))
        let sim = DeviceSimClient(baseURL: stack.plan.deviceSimulatorURL)
        try await stack.launch(startDelay: .zero)
        if days.count > 1 {
            // Held early on day 1 (in play, so the followers are started) until closeOfDayOne moves it on.
            try await stack.waitFor("the first delivery", timeout: .seconds(60)) { try await stack.replayStatus().deliveries >= 1 }
            try await stack.controlReplay("pause")
        }
        try #require(try await sim.devices().count == 2, "device-sim runs 2 devices")
        try await stack.waitFor("a push-started activity on both devices", timeout: .seconds(90)) {
            try await sim.devices().allSatisfy { $0.activity(fixture)?.state == "active" }
        }
        if let restartAt {
            // Fast catch-up (item 5): the poller and the detector die mid-match (kill -9) and come back. The poller
            // reads its cursor back from feed_balls; the detector's first snapshot does not follow a chain it
            // remembers, so it rebuilds the ball set from feed_balls at once instead of waiting for a replay.
            try await stack.waitFor("\(restartAt) deliveries replayed", timeout: .seconds(120)) {
                try await stack.replayStatus().deliveries >= restartAt
            }
            let before = Dictionary(uniqueKeysWithValues: try await sim.devices().map { ($0.deviceId, $0.activity(fixture)?.timestamp ?? 0) })
            try await stack.supervisor.killAndRestart("detector")
            try await stack.supervisor.killAndRestart("poller")
            try await stack.waitFor("the restarted detector rebuilt the ball set from the history", timeout: .seconds(60)) {
                let metrics = try await DevHTTP().get(stack.plan.serviceURL("detector")! + "/metrics").text
                return PrometheusText.sum(metrics, metric: "detector_ball_history_resyncs_total", matching: [:]) >= 1
            }
            // ...and both devices get a new update within seconds of it.
            try await stack.waitFor("an update after the restart on both devices", timeout: .seconds(60)) {
                try await sim.devices().allSatisfy { ($0.activity(fixture)?.timestamp ?? 0) > (before[$0.deviceId] ?? 0) }
            }
        }
        if days.count > 1 { try await closeOfDayOne(stack, sim: sim, days: days) }
        let total = try await stack.replayStatus().totalDeliveries
        try await stack.waitFor("all \(total) deliveries replayed", timeout: .seconds(600)) { try await stack.replayStatus().finished }

        // The final state: the detector's, with the real result and last score, on both devices, which ended.
        let finalState = LockedValue<UnifiedDisplayState?>(nil)
        try await stack.waitFor("the final state and the end push on both devices", timeout: .seconds(180)) {
            guard let state = try await stack.finalDisplayState(fixture) else { return false }
            finalState.withLock { $0 = state }
            return try await sim.devices().allSatisfy {
                $0.activity(fixture)?.contentState == state && ["ended", "dismissed"].contains($0.activity(fixture)?.state ?? "")
            }
        }
        let final = try #require(finalState.withLock { $0 })
        #expect(final.resultLine == expected.result, "result line \(final.resultLine ?? "nil") vs Cricsheet \(expected.result)")
        #expect(final.lockScreen.headline.contains(expected.innings.last!),
                "headline \(final.lockScreen.headline) shows the final score \(expected.innings.last!)")
        if let perOver = try CricsheetMatch.load(contentsOf: stack.options.matchFile).info.ballsPerOver, perOver != 6 {
            // The Hundred: "SB 141/9 (100 balls)", never its five-ball sets read as overs.
            #expect(final.lockScreen.headline.hasSuffix(" balls)"), "headline \(final.lockScreen.headline) counts balls")
            #expect(final.compactTrailing.overs.hasSuffix(" balls"), "compact trailing \(final.compactTrailing.overs)")
        }
        #expect(try await stack.count("SELECT count(*) FROM live_activities WHERE match_id = $1 AND status = 'ended' AND end_reason = 'match_end'") == 2)

        // One result event; no bad message; every message under its bound.
        let detector = try await DevHTTP().get(stack.plan.serviceURL("detector")! + "/metrics").text
        #expect(PrometheusText.sum(detector, metric: "detector_events_total", matching: ["kind": "result"]) == 1)
        // Every four, six, wicket, fifty, hundred and five-for of the match, exactly once (the golden counts,
        // now through Kafka; the first snapshot of a match announces only its last few balls, and this one is
        // followed from the first ball).
        let counts = CricsheetCounts(raw: try JSONSerialization.jsonObject(with: Data(contentsOf: stack.options.matchFile)) as? [String: Any] ?? [:])
        // (A restarted detector counts from its restart: the exact counts are checked on the run without one.)
        for kind in ["four", "six", "wicket", "fifty", "hundred", "fiveFor"] where restartAt == nil {
            #expect(Int(PrometheusText.sum(detector, metric: "detector_events_total", matching: ["kind": kind])) == counts.total(kind),
                    "\(kind) events")
        }
        #expect(PrometheusText.sum(detector, metric: "detector_bad_messages_total", matching: [:]) == 0)
        let poller = try await DevHTTP().get(stack.plan.serviceURL("poller")! + "/metrics").text
        // Every day but the last closed at stumps: its activities ended (both devices) and new ones started.
        let coordinator = try await DevHTTP().get(stack.plan.serviceURL("la-coordinator")! + "/metrics").text
        #expect(Int(PrometheusText.sum(detector, metric: "detector_events_total", matching: ["kind": "stumps"])) == days.count - 1)
        #expect(Int(PrometheusText.sum(coordinator, metric: "la_rows_ended_total", matching: ["reason": "day_end"])) == 2 * (days.count - 1))
        #expect(Int(PrometheusText.sum(coordinator, metric: "orchestrator_start_jobs_total", matching: ["reason": "new_day"]))
                == 2 * (days.count - 1))
        let largest = PrometheusText.sum(poller, metric: "poller_snapshot_largest_message_bytes", matching: [:])
        #expect(largest > 0 && largest <= Double(FixtureSnapshot.maximumBytes), "largest snapshot \(largest) bytes")
        #expect(PrometheusText.sum(poller, metric: "poller_errors_total", matching: ["kind": "snapshot_too_large"]) == 0)
        Logger(label: "long").info("message sizes", ["match_id": fixture, "largest_snapshot_bytes": "\(Int(largest))",
            "snapshot_messages": "\(Int(PrometheusText.sum(poller, metric: "poller_snapshot_messages_total", matching: [:])))"])
    }
}
