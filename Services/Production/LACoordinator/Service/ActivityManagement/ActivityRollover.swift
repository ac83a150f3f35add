import Contracts
import Foundation
import Kafka
import LiveActivities
import Postgres
import PushComposition

/// Ends and re-starts Live Activities before iOS ends them: an activity is allowed 8 hours of being
/// active, and a long ODI or a rain-delayed Test day outlasts that. Each pass takes the ACTIVE rows of
/// matches in play whose `activated_at` is at least `rolloverAfter` ago (device with a push-to-start
/// token), and per row, in one transaction per chunk: the row → PENDING as a fresh start
/// (`start_attempts` + 1, `day_start_attempt` = it, `activated_at` and the update token cleared), an end
/// push to the old update token (`LiveActivityPayload.replaced`, dismissed at once) and a push-to-start
/// to the device. The transaction commits only once both jobs are acknowledged (at-least-once; job ids
/// "rollover:<match>:<user>:<device>:<attempt>" and the start's usual id). A channel activity has no update token:
/// it gets the push-to-start alone (on the match's channel again), and the app ends the older activity of the match
/// when the new one starts.
struct ActivityRollover: Sendable {
    let orchestrator: MatchOrchestrator

    /// An activity to roll over: the device as a start candidate, and the activity's update token and attempts.
    private struct Row: Sendable {
        var device: MatchOrchestrator.Candidate
        var updateToken: String?
        var attempts: Int
    }

    /// One pass; returns the number of activities rolled over.
    func runOnce(now: Date) async throws -> Int {
        let settings = orchestrator.settings
        let cutoff = now.addingTimeInterval(-settings.rolloverAfter.seconds)
        let rows = try await LiveActivityStore(database: orchestrator.database)
            .rolloverCandidates(activatedBefore: cutoff, limit: settings.chunkSize)
            .map { candidate in
                let match = MatchOrchestrator.decodeMatch(candidate.device)
                return Row(device: MatchOrchestrator.Candidate(candidate.device, card: match.card, state: match.state, previous: nil),
                           updateToken: candidate.updateToken, attempts: candidate.attempts)
            }
        guard !rows.isEmpty else { return 0 }
        return try await rollOver(rows, now: now)
    }

    private func rollOver(_ rows: [Row], now: Date) async throws -> Int {
        try await orchestrator.database.withTransaction { connection in
            var jobs: [PushJob] = []
            var rolled = 0
            for row in rows {
                let device = row.device
                let changed = try await LiveActivityStore.rollOver(
                    on: connection, matchId: device.matchId, userId: device.userId, deviceId: device.deviceId,
                    attempts: row.attempts, updateToken: row.updateToken, now: now)
                guard changed else { continue }
                rolled += 1
                if let token = row.updateToken { jobs.append(try endJob(row, token: token, attempt: row.attempts + 1, now: now)) }
                jobs.append(try orchestrator.job(for: device, attempt: row.attempts + 1, now: now))
            }
            try await orchestrator.produce(try jobs.map(orchestrator.message))
            orchestrator.metrics.rolloverJobs.increment(by: rolled)
            if rolled > 0 {
                orchestrator.logger.info("activities rolled over before the 8-hour limit", ["count": String(rolled)])
            }
            return rolled
        }
    }

    /// The end of the old activity (its update token), composed by `DevicePushComposer`.
    private func endJob(_ row: Row, token: String, attempt: Int, now: Date) throws -> PushJob {
        let device = row.device
        var ended = device.device
        ended.token = token
        return try orchestrator.composer.rolloverEnd(ended, attempt: attempt, state: device.displayState(now: now),
                                                     stateSeq: device.state == nil ? 0 : device.stateSeq, now: now)
    }
}
