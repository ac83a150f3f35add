/// The Kafka topics of the pipeline: the only place a topic name is written.
///
/// Partition counts and retention live in `deploy/topics.conf` (the one topic config);
/// a test checks that every topic here is declared there.
public enum Topic: String, Sendable, CaseIterable {
    /// `FixtureSnapshot`, key matchId: poller → detector.
    case fixtures = "sportmonks.fixtures"
    /// `MatchBusEvent`, key matchId: detector → la-coordinator.
    case matchEvents = "match.events"
    /// `PushJob`, key "matchId:shard": poller, api, la-coordinator → apns-sender.
    case pushJobs = "push.jobs"
    /// `TokenInvalid`, key matchId: apns-sender → la-coordinator.
    case tokenInvalid = "push.token-invalid"
    /// `PushOutcome`, key "matchId:shard" (the job's key): apns-sender → la-coordinator's delivery recorder.
    case pushOutcomes = "push.outcomes"
    /// `PushProgress`, key "jobsTopic:partition:offset": apns-sender's marks of what it sent, read back by the member
    /// that takes over a jobs partition so that it does not send answered targets again.
    case pushProgress = "push.progress"
    /// Jobs that exhausted retries or expired, key jobId.
    case dead = "push.dead"
    /// `DeadLetterRecord`, key "sourceTopic:partition:offset": messages any consumer could not decode.
    case deadLetter = "pipeline.dead-letter"

    /// The topic's name on the broker.
    public var name: String { rawValue }
}
