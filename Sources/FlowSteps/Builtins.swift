public import FlowCatalog
import FlowConfig
public import FlowEngine
import FlowTransform

/// flowrun's built-ins, assembled: the step types, the providers, the transformers and the info model.
///
/// Adding a built-in step is its own file, its tests, and one line in ``steps``: the catalog that the checker,
/// the schema, the docs and `flowrun steps` read is made from these lists.
public enum Builtins {
    /// The built-in steps this build runs.
    public static let steps: [any BuiltinStep.Type] = [
        WelcomeStep.self,
        SessionConfigurationStep.self,
        SettingsDownloadStep.self,
        CommandStep.self,
        StoreManagerStep.self,
        BasicAuthenticationStep.self,
        OAuth2AuthenticationStep.self,
        LogoutStep.self,
        SAMLAuthenticationStep.self,
        OTPSessionConfigurationStep.self,
        CertificateAuthenticationStep.self,
        SLSAuthenticationStep.self,
        DestinationsDownloadStep.self,
        UserRolesStep.self,
        ClientResourcesStep.self,
        ApplySettingsStep.self,
        LogUploadStep.self,
        UsageUploadStep.self,
        CrashReportUploadStep.self,
        LockWipePolicyStep.self,
        EULAStep.self, UserConsentStep.self, DataCollectionConsentStep.self,
        DeviceRegistrationStep.self,
        PushRegistrationStep.self,
        PushStatusStep.self,
    ]

    /// The registry of every built-in step: those of ``steps``, and those the format describes that this build
    /// cannot run yet.
    public static var registry: StepRegistry { sharedRegistry }

    /// The catalog of every built-in.
    public static var catalog: Catalog { sharedRegistry.catalog }

    private static let sharedRegistry = makeRegistry()

    /// A registry equal to ``registry`` that shares no storage with it. Copying a catalog shares its tables, and
    /// every look-up then writes their reference counts: threads that lint files side by side each take their
    /// own, so that two cores never contend for those counts.
    public static func makeRegistry() -> StepRegistry {
        let base = Catalog(
            steps: [], transformers: TransformerRegistry.builtin.specs, providers: ProviderRegistry.builtin.specs,
            keys: InfoKeys.builtins, records: Catalog.builtinRecords)
        return StepRegistry(catalog: base, steps: steps)
    }
}

extension Catalog {
    /// The catalog of flowrun's built-ins (``Builtins/catalog``).
    public static var builtin: Catalog { Builtins.catalog }
}
