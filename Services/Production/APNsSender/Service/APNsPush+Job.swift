import APNs
import Contracts

/// The mapping from the app's push jobs (Contracts) to the transport's value types (APNs): the one place the
/// two meet.
extension APNsPush {
    /// The push of `job` to `target`, with the apns-id derived from the job id and the token (a replayed job
    /// reuses it).
    init(_ job: PushJob, payload: [UInt8], target: PushTarget) {
        self.init(payload: payload, device: APNsDeviceToken(target), type: APNsPushType(job.kind), priority: job.priority,
                  expiration: job.expiration, apnsID: APNsID.derive(jobID: job.jobId, token: target.token))
    }
}

extension APNsDeviceToken {
    init(_ target: PushTarget) {
        self.init(target.token, environment: target.env == .production ? .production : .sandbox)
    }
}

extension APNsPushType {
    init(_ kind: PushKind) {
        switch kind {
        case .alert: self = .alert
        case .background: self = .background
        case .liveActivityUpdate, .liveActivityEnd, .liveActivityStart: self = .liveActivity
        }
    }
}
