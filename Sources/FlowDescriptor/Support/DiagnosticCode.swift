/// A stable diagnostic code such as `FR201`, with a short name and a summary.
///
/// Every code lives in ``DiagnosticCode/all``: the one place to look them up, and the source of
/// `docs/diagnostics.md` and the SARIF rule table. Codes never change meaning once released.
public struct DiagnosticCode: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: String
    /// A kebab-case name, used as the SARIF rule name.
    public let name: String
    public let defaultSeverity: Severity
    public let summary: String

    init(_ rawValue: String, _ name: String, _ severity: Severity, _ summary: String) {
        self.rawValue = rawValue
        self.name = name
        self.defaultSeverity = severity
        self.summary = summary
    }

    public var description: String { rawValue }

    public static func == (lhs: DiagnosticCode, rhs: DiagnosticCode) -> Bool { lhs.rawValue == rhs.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
    public static func < (lhs: DiagnosticCode, rhs: DiagnosticCode) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The code with this raw value (`FR201`), if there is one.
    public static func named(_ rawValue: String) -> DiagnosticCode? {
        byRawValue[rawValue.uppercased()]
    }

    /// The code written as `text` in a suppression comment: its raw value in any case (`fr601`) or its name.
    public static func written(_ text: some StringProtocol) -> DiagnosticCode? {
        byName[String(text)] ?? byRawValue[text.uppercased()]
    }

    private static let byRawValue = Dictionary(uniqueKeysWithValues: all.map { ($0.rawValue, $0) })
    private static let byName = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// Whether a `flowrun-lint: disable` comment may silence findings of this code. Reading (FR1xx) and
    /// structural (FR2xx) errors may not: without them nothing later can be trusted, and a file that cannot be
    /// read or decoded cannot run, so silencing them would only hide why.
    public var canBeSilenced: Bool {
        !(rawValue.hasPrefix("FR1") || rawValue.hasPrefix("FR2"))
    }

    // MARK: Reading (FR1xx)
    public static let syntax = DiagnosticCode(
        "FR100", "yaml-syntax", .error, "The file is not well-formed YAML or JSON.")
    public static let duplicateKey = DiagnosticCode(
        "FR101", "duplicate-key", .error, "A mapping has the same key twice.")
    public static let aliasLimit = DiagnosticCode(
        "FR102", "alias-expansion-limit", .error,
        "Aliases would expand to more nodes than the reader allows (an alias bomb).")
    public static let depthLimit = DiagnosticCode(
        "FR103", "nesting-too-deep", .error, "Nesting is deeper than the reader allows.")
    public static let fileTooLarge = DiagnosticCode(
        "FR104", "file-too-large", .error, "The file is larger than the reader allows.")
    public static let encoding = DiagnosticCode(
        "FR105", "invalid-encoding", .error, "The file is not valid UTF-8 or holds characters YAML forbids.")
    public static let multipleDocuments = DiagnosticCode(
        "FR106", "multiple-documents", .error, "The file holds more than one YAML document.")
    public static let emptyDocument = DiagnosticCode("FR107", "empty-file", .error, "The file holds no document.")
    public static let tabIndentation = DiagnosticCode(
        "FR108", "tab-indentation", .error, "A tab is used where YAML needs spaces.")
    public static let unsupportedTag = DiagnosticCode(
        "FR109", "unsupported-tag", .error, "A YAML tag other than the core schema's is used.")
    public static let unreadable = DiagnosticCode("FR110", "unreadable-file", .error, "The file cannot be read.")
    public static let undefinedAlias = DiagnosticCode(
        "FR111", "undefined-alias", .error, "An alias names an anchor that is not defined before it.")

    // MARK: Structure (FR2xx)
    public static let unknownField = DiagnosticCode(
        "FR200", "unknown-field", .error, "A field that the format does not define.")
    public static let missingField = DiagnosticCode("FR201", "missing-field", .error, "A required field is missing.")
    public static let wrongType = DiagnosticCode(
        "FR202", "wrong-type", .error, "A value has the wrong type for its field.")
    public static let invalidValue = DiagnosticCode(
        "FR203", "invalid-value", .error, "A value is of the right type but not allowed.")
    public static let unsupportedVersion = DiagnosticCode(
        "FR204", "unsupported-format-version", .error, "The `flowrun` format version is not one this tool reads.")
    public static let rootNotMapping = DiagnosticCode(
        "FR205", "root-not-mapping", .error, "The document is not a mapping.")
    public static let invalidReference = DiagnosticCode(
        "FR206", "invalid-reference", .error, "A `${...}` reference is malformed or names an unknown namespace.")
    public static let wrongKindOfFile = DiagnosticCode(
        "FR207", "wrong-kind-of-file", .error, "A scenario or emulator data file read as a flow, or the other way.")

    // MARK: Names (FR3xx)
    public static let unknownStep = DiagnosticCode(
        "FR300", "unknown-step-type", .error, "`uses` names no built-in step.")
    public static let unknownTransformer = DiagnosticCode(
        "FR301", "unknown-transformer", .error, "A transformer or conversion name is not built in.")
    public static let unknownProvider = DiagnosticCode(
        "FR302", "unknown-provider", .error, "A configuration provider name is not built in.")
    public static let undeclaredStep = DiagnosticCode(
        "FR303", "undeclared-step", .error, "A flow names a step that `steps` does not declare.")
    public static let unusedStep = DiagnosticCode(
        "FR304", "unused-step", .warning, "A declared step is used by no flow.")
    public static let unknownKey = DiagnosticCode(
        "FR305", "unknown-info-key", .error, "An info key is neither declared in `keys` nor built in.")
    public static let unknownParameter = DiagnosticCode(
        "FR306", "unknown-parameter", .error, "A step, transformer or provider parameter that it does not take.")
    public static let unknownType = DiagnosticCode("FR307", "unknown-type", .error, "A key type name is not known.")
    public static let authenticationMismatch = DiagnosticCode(
        "FR308", "authentication-mismatch", .warning, "The flows' authentication steps do not match `authentication`.")
    public static let duplicateStepInFlow = DiagnosticCode(
        "FR309", "duplicate-step-in-flow", .warning, "A flow runs the same step twice.")
    public static let builtinKeyRedeclared = DiagnosticCode(
        "FR310", "builtin-key-redeclared", .error, "`keys` declares a built-in key with another type.")
    public static let referenceWithoutDollar = DiagnosticCode(
        "FR311", "reference-without-dollar", .warning, "`{input.NAME}` without `$`: text, not a reference.")

    // MARK: Flow shape (FR4xx)
    public static let restoreWithoutStore = DiagnosticCode(
        "FR400", "restore-store-not-first", .error, "A restore flow does not open the store first.")
    public static let unknownRouteTarget = DiagnosticCode(
        "FR401", "unknown-failure-target", .error, "An `on-failure` target does not exist.")
    public static let endlessCycle = DiagnosticCode(
        "FR402", "endless-cycle", .error, "Failure routing forms a cycle that nothing bounds.")
    public static let missingOnboardFlow = DiagnosticCode(
        "FR403", "missing-onboard-flow", .error, "The file has no onboard flow.")
    public static let emptyFlow = DiagnosticCode("FR404", "empty-flow", .error, "A flow has no steps.")
    public static let otpAfterAuthentication = DiagnosticCode(
        "FR405", "otp-after-authentication", .error,
        "An OTP session configuration step runs after the authentication step it protects.")
    public static let operationNotOffered = DiagnosticCode(
        "FR406", "operation-not-offered", .error,
        "An operation mode (unlock, verify-passcode, delete-registration, forgot-passcode) lists a step that "
            + "cannot perform it.")

    // Step groups (FR41x): `groups:` and `{group: NAME}` uses.
    public static let unknownGroup = DiagnosticCode(
        "FR410", "unknown-group", .error, "A `{group: NAME}` use names no group that `groups` declares.")
    public static let unusedGroup = DiagnosticCode(
        "FR411", "unused-group", .warning, "A declared group is used by no flow.")
    public static let groupCycle = DiagnosticCode(
        "FR412", "group-cycle", .error, "A group uses itself, directly or through other groups.")
    public static let emptyGroup = DiagnosticCode("FR413", "empty-group", .warning, "A group has no entries.")
    public static let groupStepConfusion = DiagnosticCode(
        "FR414", "group-step-confusion", .error,
        "A flow entry names a group as a step, or a step with `group:`.")

    // MARK: Data flow (FR5xx)
    public static let missingKey = DiagnosticCode(
        "FR500", "required-key-not-provided", .error, "A step requires an info key that nothing before it provides.")
    public static let keyTypeMismatch = DiagnosticCode(
        "FR501", "key-type-mismatch", .error, "A key is provided with a type other than the one required or declared.")
    public static let keyProvidedTwice = DiagnosticCode(
        "FR502", "key-provided-twice", .error, "Two transformers provide the same key.")

    // MARK: Security (FR6xx)
    public static let insecureEndpoint = DiagnosticCode(
        "FR600", "insecure-endpoint", .error, "An authentication or token endpoint uses `http://`.")
    public static let literalSecret = DiagnosticCode(
        "FR601", "literal-secret", .error, "A secret is written in the flow file.")
    public static let urlProviderWithoutAllowlist = DiagnosticCode(
        "FR602", "url-provider-without-allowlist", .error, "A `url` provider accepts links from any host.")
    public static let secretWithoutStore = DiagnosticCode(
        "FR603", "secret-without-store", .error,
        "A step keeps credentials or tokens, but no step opens an encrypted store for them.")
    public static let authenticatorRegisteredTwice = DiagnosticCode(
        "FR604", "authenticator-registered-twice", .error,
        "Two steps of one flow register authenticators for the same method.")
    public static let identitySourceNeedsInput = DiagnosticCode(
        "FR605", "identity-source-needs-input", .warning,
        "A certificate step's source takes a file, password or login value that a run without a terminal lacks.")
    public static let stepNeedsStore = DiagnosticCode(
        "FR606", "step-needs-store", .error,
        "A step keeps what only the encrypted store may hold (consents), but no step opens an encrypted store.")

    // MARK: Compiling and running (FR7xx)
    public static let invalidParameter = DiagnosticCode(
        "FR700", "invalid-parameter", .error,
        "A built-in step, provider or transformer cannot be made from its parameters.")
    public static let stateUnwritable = DiagnosticCode(
        "FR702", "state-unwritable", .error,
        "The state folder cannot be created or written (reported by `flowrun run` before the first step).")

    // MARK: Suppressions (FR9xx)
    public static let unknownSuppressedCode = DiagnosticCode(
        "FR900", "unknown-suppressed-code", .warning, "A `flowrun-lint: disable` comment names no known code.")
    public static let unusedSuppression = DiagnosticCode(
        "FR901", "unused-suppression", .warning, "A `flowrun-lint: disable` comment silences nothing.")
    public static let malformedSuppression = DiagnosticCode(
        "FR902", "malformed-suppression", .warning, "A `flowrun-lint:` comment cannot be read.")

    /// Every code, in order.
    public static let all: [DiagnosticCode] = [
        syntax, duplicateKey, aliasLimit, depthLimit, fileTooLarge, encoding, multipleDocuments, emptyDocument,
        tabIndentation, unsupportedTag, unreadable, undefinedAlias,
        unknownField, missingField, wrongType, invalidValue, unsupportedVersion, rootNotMapping, invalidReference,
        wrongKindOfFile,
        unknownStep, unknownTransformer, unknownProvider, undeclaredStep, unusedStep, unknownKey, unknownParameter,
        unknownType, authenticationMismatch, duplicateStepInFlow, builtinKeyRedeclared, referenceWithoutDollar,
        restoreWithoutStore, unknownRouteTarget, endlessCycle, missingOnboardFlow, emptyFlow, otpAfterAuthentication,
        unknownGroup, unusedGroup, groupCycle, emptyGroup, groupStepConfusion,
        operationNotOffered,
        missingKey, keyTypeMismatch, keyProvidedTwice,
        insecureEndpoint, literalSecret, urlProviderWithoutAllowlist, secretWithoutStore, authenticatorRegisteredTwice,
        identitySourceNeedsInput, stepNeedsStore,
        invalidParameter, stateUnwritable,
        unknownSuppressedCode, unusedSuppression, malformedSuppression,
    ]
}
