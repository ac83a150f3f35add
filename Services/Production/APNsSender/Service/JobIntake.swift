import APNs
import Contracts
import Foundation
import Kafka

/// What one message on the jobs topic turned out to be.
enum IncomingJob: Sendable {
    /// A job to send.
    case job(PushJob)
    /// A well-formed job that cannot be sent as it is (too many targets, payload over 4 KB, bad
    /// priority): dead-lettered whole as a `DeadPush`.
    case invalid(PushJob, reason: String)
    /// Not a job at all. `jobId` is set when the JSON object carried one (partial decode).
    case poison(kind: String, error: String, jobId: String?)
}

/// Decodes and checks messages taken off `push.jobs`.
enum JobIntake {
    /// APNs' limit on a device push body.
    static let maximumPayloadBytes = 4096

    static func classify(_ message: KafkaMessage) -> IncomingJob {
        let job: PushJob
        do {
            job = try PushJobDecoder.decode(message.value)
        } catch {
            return .poison(kind: error.kind, error: error.description, jobId: partialJobID(message.value))
        }
        if let problem = problem(in: job) { return .invalid(job, reason: problem) }
        return .job(job)
    }

    /// Why a decoded job cannot be sent, or nil.
    static func problem(in job: PushJob) -> String? {
        if job.targets.count > PushJob.maximumTargets {
            return "\(job.targets.count) targets exceeds the \(PushJob.maximumTargets)-target limit"
        }
        if job.payload.utf8.count > maximumPayloadBytes {
            return "payload of \(job.payload.utf8.count) bytes exceeds APNs' \(maximumPayloadBytes)-byte limit"
        }
        if job.payload.isEmpty { return "empty payload" }
        if job.priority != 5 && job.priority != 10 && job.priority != 1 { return "priority \(job.priority) is not 1, 5 or 10" }
        if job.jobId.isEmpty { return "empty jobId" }
        if let channel = job.channel {
            if !job.targets.isEmpty { return "a broadcast job has no targets (\(job.targets.count) given)" }
            if job.kind != .liveActivityUpdate && job.kind != .liveActivityEnd { return "a broadcast is an update or an end, not \(job.kind.rawValue)" }
            if !APNsChannelID.isWellFormed(channel.channelId) { return "channel id is not base64" }
            if channel.storagePolicy != 0 && channel.storagePolicy != 1 { return "storage policy \(channel.storagePolicy) is not 0 or 1" }
        }
        return nil
    }

    /// The `jobId` string of a JSON object that is not a valid job, if it has one.
    static func partialJobID(_ bytes: [UInt8]) -> String? {
        guard !bytes.isEmpty, bytes.count <= MessageCodec.maximumMessageBytes,
              let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
              let jobID = object["jobId"] as? String, !jobID.isEmpty else { return nil }
        return String(jobID.prefix(200))
    }
}
