import APNs
import BroadcastChannels
import Contracts
import Foundation
import LiveActivities
import Runtime

/// The broadcast channels' lifecycle, one per (match, APNs environment), run by the poller's leader (a singleton
/// under the poller's advisory lock, like the orchestrator):
/// - **create** ahead of the match (`leadTime` before the scheduled start) or at once when a match is found
///   live without one, and again when a channel became INVALID (APNs no longer knows it); a create APNs refused
///   (CannotCreateChannelConfig: the 10,000-channel limit; FeatureNotEnabled: the capability is off; …) leaves the
///   row FAILED — counted, alerted on, tried again after `failedRetry` — and the match's devices stay on
///   per-token delivery;
/// - **find again** a create that got no answer: the app's channels are listed and the one id the table does not
///   know is taken (two or more: all of them are deleted as orphans and the create is made again);
/// - **delete** a channel `grace` after its match ended (or never went live);
/// - **reconcile** every `reconcileInterval` against APNs's list: ids the table does not know are orphans (deleted),
///   ACTIVE rows APNs does not list become INVALID (and so are created again).
struct ChannelManager: Sendable {
    /// `BROADCAST_*`.
    struct Settings: Sendable, Equatable {
        /// `BROADCAST_ENABLED` (false): run the manager at all.
        var enabled = false
        /// `BROADCAST_ENVIRONMENTS` ("production,sandbox"): the environments that get channels.
        var environments: [APNsEnvironment] = [.production, .sandbox]
        /// `BROADCAST_STORAGE_POLICY` (0, No Message Stored): every ball-by-ball update carries the whole state, so
        /// a stored old one is worth nothing to a device coming back online, and policy 0 has the higher
        /// publishing budget (its broadcasts always go with `apns-expiration` 0). Its cost: a device offline at
        /// the final broadcast misses the end and ends by its stale date or iOS's 8-hour limit.
        var storagePolicy: APNsChannelStoragePolicy = .noMessageStored
        /// `BROADCAST_CHANNEL_LEAD_MS` (2 h): how long before the scheduled start a channel is created.
        var leadTime: Duration = .seconds(2 * 3600)
        /// `BROADCAST_CHANNEL_GRACE_MS` (2 h): how long after the match ended its channel is deleted (the final
        /// broadcast and late followers' ends are sent within it).
        var grace: Duration = .seconds(2 * 3600)
        /// `BROADCAST_CHANNEL_INTERVAL_MS` (30 s): how often the manager runs.
        var interval: Duration = .seconds(30)
        /// `BROADCAST_RECONCILE_INTERVAL_MS` (1 h): how often the table is compared with APNs's list.
        var reconcileInterval: Duration = .seconds(3600)
        /// `BROADCAST_CREATE_RETRY_MS` (10 min): how long a refused create waits before it is tried again.
        var failedRetry: Duration = .seconds(600)
        /// `BROADCAST_CREATE_TIMEOUT_MS` (30 s): a create without an answer for this long is looked for in the list.
        var createTimeout: Duration = .seconds(30)
        /// A scheduled match that never went live this long after its start is over (no channel, or its channel
        /// deleted).
        var staleAfter: Duration = .seconds(2 * 86_400)
        /// Rows handled per step of a pass.
        var batch = 100
    }

    /// What one pass did.
    struct Report: Sendable, Equatable {
        var created = 0
        var failed = 0
        var foundAgain = 0
        var deleted = 0
    }

    /// What one reconciliation did.
    struct Reconciliation: Sendable, Equatable {
        var orphansDeleted = 0
        var invalidated = 0
    }

    let store: BroadcastChannelStore
    /// Ends the activities of a channel found gone (`endChannelActivities`).
    let activities: LiveActivityStore
    let client: APNsChannelClient
    let settings: Settings
    let clock: any WallClock
    let metrics: MetricsRegistry
    let logger: Logger

    /// One pass: deletes, creates, unanswered creates, then the gauge.
    func runOnce() async throws -> Report {
        var report = Report()
        // Deletes first: they free room under APNs's channel limit for the creates.
        try await store.noteEndedMatches(now: clock.now(), staleAfter: settings.staleAfter)
        for channel in try await store.dueForDelete(endedBefore: clock.now().addingTimeInterval(-settings.grace.seconds), limit: settings.batch) {
            if try await delete(channel) { report.deleted += 1 }
        }
        let now = clock.now()
        for (matchId, environment) in try await store.dueForCreate(
            now: now, leadTime: settings.leadTime, staleAfter: settings.staleAfter, environments: settings.environments,
            failedRetryBefore: now.addingTimeInterval(-settings.failedRetry.seconds), limit: settings.batch)
        {
            switch try await create(matchId: matchId, environment: environment) {
            case .created: report.created += 1
            case .refused: report.failed += 1
            case .unanswered, .skipped: break
            }
        }
        let unanswered = try await store.unansweredCreates(before: clock.now().addingTimeInterval(-settings.createTimeout.seconds))
        for environment in Set(unanswered.map(\.environment)).sorted(by: { $0.rawValue < $1.rawValue }) {
            report.foundAgain += try await findAgain(unanswered.filter { $0.environment == environment }, environment: environment)
        }
        try await updateGauge()
        return report
    }

    /// Compares every configured environment's channels with APNs's list.
    func reconcile() async throws -> Reconciliation {
        var result = Reconciliation()
        for environment in settings.environments {
            guard case .success(let listed) = await client.listChannels(environment: APNsServerEnvironment(environment)) else { continue }
            let ids = Set(listed.map(\.rawValue))
            let known = try await store.knownChannelIds(environment: environment)
            for orphan in ids.subtracting(known).sorted() where await deleteOrphan(orphan, environment: environment) {
                result.orphansDeleted += 1
            }
            for channel in try await store.activeChannels(environment: environment) {
                guard let id = channel.channelId, !ids.contains(id) else { continue }
                result.invalidated += try await store.markInvalid(channelId: id, reason: "not listed by APNs", now: clock.now())
                try await activities.endChannelActivities(channelId: id)
                logger.warning("an active broadcast channel is gone from APNs's list; it will be created again", [
                    "match_id": channel.matchId, "env": environment.rawValue,
                ])
            }
        }
        return result
    }

    // MARK: - Steps

    private enum CreateResult { case created, refused, unanswered, skipped }

    private func create(matchId: String, environment: APNsEnvironment) async throws -> CreateResult {
        let now = clock.now()
        guard let generation = try await store.beginCreate(
            matchId: matchId, environment: environment, storagePolicy: settings.storagePolicy.rawValue, now: now) else { return .skipped }
        let requestID = APNsID.derive(jobID: "channel:\(matchId):\(environment.rawValue):\(generation)", token: "create")
        switch await client.createChannel(environment: APNsServerEnvironment(environment), storagePolicy: settings.storagePolicy,
                                          requestID: requestID) {
        case .success(let channel):
            _ = try await store.activate(matchId: matchId, environment: environment, generation: generation, channelId: channel.rawValue,
                                         now: clock.now())
            count("create", environment, "ok")
            logger.info("broadcast channel created", ["match_id": matchId, "env": environment.rawValue, "generation": String(generation)])
            return .created
        case .failure(let error) where error.isRetryable:
            // No answer or a transient one: the row stays CREATING and is looked for in the list later.
            count("create", environment, "unanswered")
            logger.warning("broadcast channel create unanswered", ["match_id": matchId, "env": environment.rawValue, "error": error.description])
            return .unanswered
        case .failure(let error):
            let reason = error.reason?.rawValue ?? (error.transportError ?? "unknown")
            _ = try await store.fail(matchId: matchId, environment: environment, generation: generation, reason: reason, now: clock.now())
            count("create", environment, "refused")
            metrics.counter("broadcast_channel_create_failures_total", help: "Channel creates APNs refused, by reason (the match stays on tokens)",
                            labels: ["env": environment.rawValue, "reason": reason]).increment()
            logger.error("broadcast channel create refused; the match stays on per-token delivery", [
                "match_id": matchId, "env": environment.rawValue, "reason": reason,
            ])
            return .refused
        }
    }

    /// Unanswered creates of one environment: adopt the single id the table does not know, or start again.
    private func findAgain(_ rows: [BroadcastChannel], environment: APNsEnvironment) async throws -> Int {
        guard case .success(let listed) = await client.listChannels(environment: APNsServerEnvironment(environment)) else { return 0 }
        let known = try await store.knownChannelIds(environment: environment)
        let unknown = listed.map(\.rawValue).filter { !known.contains($0) }.sorted()
        if rows.count == 1, unknown.count == 1, let row = rows.first {
            let adopted = try await store.resolveUnanswered(
                matchId: row.matchId, environment: environment, generation: row.generation, channelId: unknown[0], now: clock.now())
            if adopted { logger.info("an unanswered channel create was found in APNs's list", ["match_id": row.matchId, "env": environment.rawValue]) }
            return adopted ? 1 : 0
        }
        // Nothing to take, or no way to tell which is whose: delete the strays and create again.
        for orphan in unknown { _ = await deleteOrphan(orphan, environment: environment) }
        for row in rows {
            _ = try await store.resolveUnanswered(matchId: row.matchId, environment: environment, generation: row.generation, channelId: nil,
                                                  now: clock.now())
        }
        return 0
    }

    private func delete(_ channel: BroadcastChannel) async throws -> Bool {
        // A row that never got an id (FAILED, or an unanswered create given up) has nothing at APNs to delete.
        if channel.channelId != nil {
            guard try await store.markDeleting(matchId: channel.matchId, environment: channel.environment, now: clock.now()) else { return false }
        }
        if let id = channel.channelId {
            switch await client.deleteChannel(APNsChannelID(id), environment: APNsServerEnvironment(channel.environment)) {
            case .success:
                break
            case .failure(let error) where error.action == .channelInvalid:
                break  // gone already
            case .failure(let error):
                count("delete", channel.environment, "error")
                logger.warning("broadcast channel delete failed; retried next pass", [
                    "match_id": channel.matchId, "env": channel.environment.rawValue, "error": error.description,
                ])
                return false
            }
        }
        try await store.markDeleted(matchId: channel.matchId, environment: channel.environment, now: clock.now())
        count("delete", channel.environment, "ok")
        return true
    }

    private func deleteOrphan(_ id: String, environment: APNsEnvironment) async -> Bool {
        let result = await client.deleteChannel(APNsChannelID(id), environment: APNsServerEnvironment(environment))
        guard (try? result.get()) != nil || (result.error?.action == .channelInvalid) else { return false }
        metrics.counter("broadcast_orphans_deleted_total", help: "Channels APNs listed that the table did not know, deleted",
                        labels: ["env": environment.rawValue]).increment()
        logger.warning("deleted an orphan broadcast channel", ["env": environment.rawValue])
        return true
    }

    private func updateGauge() async throws {
        let counts = try await store.countsByEnvironmentAndState()
        for environment in APNsEnvironment.allCases {
            for state in BroadcastChannelState.allCases {
                metrics.gauge("broadcast_channels", help: "Broadcast channel rows by environment and state",
                              labels: ["env": environment.rawValue, "state": state.rawValue])
                    .set(Double(counts[environment]?[state] ?? 0))
            }
        }
    }

    private func count(_ operation: String, _ environment: APNsEnvironment, _ outcome: String) {
        metrics.counter("broadcast_channel_ops_total", help: "Channel manager operations by outcome",
                        labels: ["op": operation, "env": environment.rawValue, "outcome": outcome]).increment()
    }
}

extension APNsServerEnvironment {
    /// The transport's name for a Contracts environment.
    init(_ environment: APNsEnvironment) {
        self = environment == .production ? .production : .sandbox
    }
}

extension Result {
    fileprivate var error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
