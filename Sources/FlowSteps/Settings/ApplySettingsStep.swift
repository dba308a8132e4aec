import FlowCatalog
import FlowConfig
import FlowDescriptor
import FlowEngine
import FlowHTTP
import FlowTransform
import FlowVocabulary
import Foundation

/// The `apply-settings` step: turns the downloaded settings into what the run may do, as the SDK's generated apps
/// apply settings after downloading them.
///
/// - the log policy (`logPolicy`): the level the run logs at, set on the run, and whether its log may be uploaded
///   (logging on and a level other than NONE);
/// - the usage policy (`usagePolicy`): whether usage may be collected and uploaded: the settings' usage policy turns
///   data collection on and the data-collection consent, when a step asked for it, was not declined;
/// - what it cannot apply (crash reports, restricted features, network, security and attestation settings), noted;
/// - the passcode policy's lock timeout, noted in the trace for the steps that lock the store;
/// - the user's state: with `check-user` (the default) the role service's `Me` is read once, so that a blocked or
///   deactivated user (`user-blocked`), a locked registration (`locked`) or a wiped one (`wiped`) stops the run
///   here rather than in the middle of the app's work.
struct ApplySettingsStep: BuiltinStep {
    static let spec = StepSpec(
        name: "apply-settings",
        summary:
            "Applies the downloaded settings: sets the log level, provides the log and usage policies, notes the "
            + "lock timeout and checks that the backend still lets the user in.",
        parameters: [
            ParameterSpec(
                "check-user", .bool, default: "true",
                "Read the user from the role service (`Me`): a blocked or deactivated user fails with "
                    + "`user-blocked`, a locked or wiped registration with `locked` or `wiped`.")
        ],
        requires: [
            KeySpec(.logSettings),
            KeySpec(.featureVectorPolicies, optional: true),
            KeySpec(.usageSettings, optional: true),
            KeySpec(.lockWipePolicy, optional: true),
            KeySpec(.reportedPolicies, optional: true),
            KeySpec(.passcodePolicy),
            KeySpec(.dataCollectionConsent, optional: true),
            KeySpec(.settingsParameters, when: "check-user", is: ["true"]),
        ],
        provides: [KeySpec(.logPolicy), KeySpec(.usagePolicy)],
        waits: .server)

    let checkUser: Bool

    init(_ parameters: BuiltinParameters) throws(ParameterProblem) {
        checkUser = try parameters.flag("check-user") ?? true
    }

    func onboard(_ context: StepContext) async throws(StepFailure) -> StepOutcome {
        let logSettings = try context.required(.logSettings)
        let passcodePolicy = try context.required(.passcodePolicy)
        guard let logPolicy = RunLogPolicy(logSettings) else {
            throw StepFailure(
                .badSettings,
                "the log settings name the level `\(logSettings.text("level") ?? "")`, which is not one of "
                    + RunLog.Level.allCases.map(\.name).joined(separator: ", "))
        }
        logPolicy.apply(context)
        let usage = Self.usagePolicy(
            settings: context.info[.usageSettings], consent: context.info[.dataCollectionConsent])
        context.note("usage-policy", usage.reason ?? "")
        Self.report(context)
        if case .int(let seconds)? = passcodePolicy["lockTimeout"] {
            context.note(
                "lock-timeout",
                seconds > 0
                    ? "the passcode policy locks the store after \(seconds) s in the background"
                    : "the passcode policy's lock timeout is 0: the store locks as soon as the app leaves")
        }
        if checkUser { try await self.checkUser(context) }
        try context.provide(.logPolicy, logPolicy.record)
        try context.provide(.usagePolicy, usage)
        return .success
    }

    /// Whether usage may be uploaded: the settings' usage policy turns data collection on (the SDKs collect nothing
    /// without it), and the consent, if asked, was given.
    static func usagePolicy(settings: UsageSettings?, consent: Bool?) -> UsagePolicy {
        let (upload, reason): (Bool, String) =
            if settings == nil {
                (false, "usage is not collected: the settings have no usage policy")
            } else if settings?["dataCollectionEnabled"] != .bool(true) {
                (false, "usage is not collected: the usage policy turns data collection off")
            } else if consent == false {
                (false, "usage is not collected: the data-collection consent was declined")
            } else if consent == true {
                (true, "usage may be collected and uploaded: the usage policy and the consent allow it")
            } else {
                (true, "usage may be collected and uploaded: the usage policy allows it (no consent asked)")
            }
        return UsagePolicy(["upload": .bool(upload), "reason": .string(reason)])
    }

    /// Notes what the settings set that a command-line client applies elsewhere or cannot apply: crash reports
    /// (sent by `crash-report-upload` from files an app left; flowrun writes none), restricted features, and the
    /// groups it only shows.
    static func report(_ context: StepContext) {
        if context.info[.usageSettings]?["crashLogUploadEnabled"] == .bool(true) {
            context.note(
                "crash-reports",
                "the usage policy allows crash report uploads (a `crash-report-upload` step sends those an app left); "
                    + "flowrun writes no crash reports")
        }
        if case .list(let restricted)? = context.info[.featureVectorPolicies]?["restrictedPolicies"],
            !restricted.isEmpty
        {
            let names = restricted.compactMap(\.text).joined(separator: ", ")
            context.note("features", "the feature vector policy restricts \(names): flowrun has none of these features")
        }
        if case .record(let groups)? = context.info[.reportedPolicies] {
            for name in groups.keys.sorted() {
                context.note(
                    "not-applied",
                    "the settings' `\(name)` is shown in the run's info; a command-line client cannot "
                        + "apply it" + (name == "attestationSettings" ? " (flowrun cannot attest the device)" : ""))
            }
        }
    }

    /// Reads `Me`: the backend refuses a blocked user, a locked or a wiped registration (``Backend/fetch``); a 404
    /// is an application without users (client credentials), noted and passed.
    private func checkUser(_ context: StepContext) async throws(StepFailure) {
        let url = try Authentication.validatingURL(Authentication.mePath, context: context)
        do throws(StepFailure) {
            _ = try await Backend.fetch(
                HTTPRequest(url: url, headers: [("Accept", "application/json")]), context: context,
                what: "checking the user's state")
            context.note("user-state", "the backend lets the user in")
        } catch  where error.code == .http(404) {
            context.note("user-state", "the role service knows no user here (a client's own login): nothing checked")
        }
    }
}
