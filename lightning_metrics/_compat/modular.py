"""torchmetrics 1.9's modular module paths and the public names each one holds (data, no code).

Read by :mod:`lightning_metrics._compat`: ``lightning_metrics.<path>`` serves these names from
our own modules. A path's names are those of its ``__all__``, or else the classes and functions
it defines. ``""`` is the top level. The namespace test (``tests/test_namespace.py``) compares
this table with the installed torchmetrics and prints the rows to add when it grows.
"""

PATHS: dict[str, str] = {
    "": (
        "AUROC ROC Accuracy AveragePrecision BLEUScore BootStrapper CHRFScore CalibrationError CatMetric "
        "CharErrorRate ClasswiseWrapper CohenKappa ConcordanceCorrCoef ConfusionMatrix CosineSimilarity "
        "CramersV CriticalSuccessIndex ErrorRelativeGlobalDimensionlessSynthesis ExactMatch "
        "ExplainedVariance ExtendedEditDistance F1Score FBetaScore FleissKappa HammingDistance HingeLoss "
        "JaccardIndex KLDivergence KendallRankCorrCoef LogAUC LogCoshError MatchErrorRate MatthewsCorrCoef "
        "MaxMetric MeanAbsoluteError MeanAbsolutePercentageError MeanMetric MeanSquaredError "
        "MeanSquaredLogError Metric MetricCollection MetricTracker MinMaxMetric MinMetric MinkowskiDistance "
        "ModifiedPanopticQuality MultiScaleStructuralSimilarityIndexMeasure MultioutputWrapper "
        "MultitaskWrapper NegativePredictiveValue NormalizedRootMeanSquaredError PanopticQuality "
        "PeakSignalNoiseRatio PearsonCorrCoef PearsonsContingencyCoefficient PermutationInvariantTraining "
        "Perplexity Precision PrecisionAtFixedRecall PrecisionRecallCurve R2Score Recall "
        "RecallAtFixedPrecision RelativeAverageSpectralError RelativeSquaredError RetrievalFallOut "
        "RetrievalHitRate RetrievalMAP RetrievalMRR RetrievalNormalizedDCG RetrievalPrecision "
        "RetrievalPrecisionRecallCurve RetrievalRPrecision RetrievalRecall RetrievalRecallAtFixedPrecision "
        "RootMeanSquaredErrorUsingSlidingWindow RunningMean RunningSum SQuAD SacreBLEUScore "
        "ScaleInvariantSignalDistortionRatio ScaleInvariantSignalNoiseRatio SensitivityAtSpecificity "
        "SignalDistortionRatio SignalNoiseRatio SpearmanCorrCoef Specificity SpecificityAtSensitivity "
        "SpectralAngleMapper SpectralDistortionIndex StatScores StructuralSimilarityIndexMeasure SumMetric "
        "SymmetricMeanAbsolutePercentageError TheilsU TotalVariation TranslationEditRate TschuprowsT "
        "TweedieDevianceScore UniversalImageQualityIndex WeightedMeanAbsolutePercentageError WordErrorRate "
        "WordInfoLost WordInfoPreserved"
    ),
    "aggregation": "BaseAggregator MaxMetric MinMetric SumMetric CatMetric MeanMetric RunningMean RunningSum",
    "audio": (
        "ComplexScaleInvariantSignalNoiseRatio PermutationInvariantTraining "
        "ScaleInvariantSignalDistortionRatio ScaleInvariantSignalNoiseRatio SignalDistortionRatio "
        "SignalNoiseRatio SourceAggregatedSignalDistortionRatio "
        "PerceptualEvaluationSpeechQuality ShortTimeObjectiveIntelligibility "
        "SpeechReverberationModulationEnergyRatio DeepNoiseSuppressionMeanOpinionScore "
        "NonIntrusiveSpeechQualityAssessment"
    ),
    "audio.dnsmos": "DeepNoiseSuppressionMeanOpinionScore",
    "audio.nisqa": "NonIntrusiveSpeechQualityAssessment",
    "audio.pesq": "PerceptualEvaluationSpeechQuality",
    "audio.pit": "PermutationInvariantTraining",
    "audio.sdr": (
        "SignalDistortionRatio ScaleInvariantSignalDistortionRatio SourceAggregatedSignalDistortionRatio"
    ),
    "audio.snr": "SignalNoiseRatio ScaleInvariantSignalNoiseRatio ComplexScaleInvariantSignalNoiseRatio",
    "audio.srmr": "SpeechReverberationModulationEnergyRatio",
    "audio.stoi": "ShortTimeObjectiveIntelligibility",
    "classification": (
        "AUROC EER ROC Accuracy AveragePrecision BinaryAUROC BinaryAccuracy BinaryAveragePrecision "
        "BinaryCalibrationError BinaryCohenKappa BinaryConfusionMatrix BinaryEER BinaryF1Score "
        "BinaryFBetaScore BinaryFairness BinaryGroupStatRates BinaryHammingDistance BinaryHingeLoss "
        "BinaryJaccardIndex BinaryLogAUC BinaryMatthewsCorrCoef BinaryNegativePredictiveValue "
        "BinaryPrecision BinaryPrecisionAtFixedRecall BinaryPrecisionRecallCurve BinaryROC BinaryRecall "
        "BinaryRecallAtFixedPrecision BinarySensitivityAtSpecificity BinarySpecificity "
        "BinarySpecificityAtSensitivity BinaryStatScores CalibrationError CohenKappa ConfusionMatrix "
        "ExactMatch F1Score FBetaScore HammingDistance HingeLoss JaccardIndex LogAUC MatthewsCorrCoef "
        "MulticlassAUROC MulticlassAccuracy MulticlassAveragePrecision MulticlassCalibrationError "
        "MulticlassCohenKappa MulticlassConfusionMatrix MulticlassEER MulticlassExactMatch MulticlassF1Score "
        "MulticlassFBetaScore MulticlassHammingDistance MulticlassHingeLoss MulticlassJaccardIndex "
        "MulticlassLogAUC MulticlassMatthewsCorrCoef MulticlassNegativePredictiveValue MulticlassPrecision "
        "MulticlassPrecisionAtFixedRecall MulticlassPrecisionRecallCurve MulticlassROC MulticlassRecall "
        "MulticlassRecallAtFixedPrecision MulticlassSensitivityAtSpecificity MulticlassSpecificity "
        "MulticlassSpecificityAtSensitivity MulticlassStatScores MultilabelAUROC MultilabelAccuracy "
        "MultilabelAveragePrecision MultilabelConfusionMatrix MultilabelCoverageError MultilabelEER "
        "MultilabelExactMatch MultilabelF1Score MultilabelFBetaScore MultilabelHammingDistance "
        "MultilabelJaccardIndex MultilabelLogAUC MultilabelMatthewsCorrCoef "
        "MultilabelNegativePredictiveValue MultilabelPrecision MultilabelPrecisionAtFixedRecall "
        "MultilabelPrecisionRecallCurve MultilabelROC MultilabelRankingAveragePrecision "
        "MultilabelRankingLoss MultilabelRecall MultilabelRecallAtFixedPrecision "
        "MultilabelSensitivityAtSpecificity MultilabelSpecificity MultilabelSpecificityAtSensitivity "
        "MultilabelStatScores NegativePredictiveValue Precision PrecisionAtFixedRecall PrecisionRecallCurve "
        "Recall RecallAtFixedPrecision SensitivityAtSpecificity Specificity SpecificityAtSensitivity "
        "StatScores"
    ),
    "classification.accuracy": "BinaryAccuracy MulticlassAccuracy MultilabelAccuracy Accuracy",
    "classification.auroc": "BinaryAUROC MulticlassAUROC MultilabelAUROC AUROC",
    "classification.average_precision": (
        "BinaryAveragePrecision MulticlassAveragePrecision MultilabelAveragePrecision AveragePrecision"
    ),
    "classification.base": "",
    "classification.calibration_error": "BinaryCalibrationError MulticlassCalibrationError CalibrationError",
    "classification.cohen_kappa": "BinaryCohenKappa MulticlassCohenKappa CohenKappa",
    "classification.confusion_matrix": (
        "BinaryConfusionMatrix MulticlassConfusionMatrix MultilabelConfusionMatrix ConfusionMatrix"
    ),
    "classification.eer": "BinaryEER MulticlassEER MultilabelEER EER",
    "classification.exact_match": "MulticlassExactMatch MultilabelExactMatch ExactMatch",
    "classification.f_beta": (
        "BinaryFBetaScore MulticlassFBetaScore MultilabelFBetaScore BinaryF1Score MulticlassF1Score "
        "MultilabelF1Score FBetaScore F1Score"
    ),
    "classification.group_fairness": "BinaryGroupStatRates BinaryFairness",
    "classification.hamming": (
        "BinaryHammingDistance MulticlassHammingDistance MultilabelHammingDistance HammingDistance"
    ),
    "classification.hinge": "BinaryHingeLoss MulticlassHingeLoss HingeLoss",
    "classification.jaccard": "BinaryJaccardIndex MulticlassJaccardIndex MultilabelJaccardIndex JaccardIndex",
    "classification.logauc": "BinaryLogAUC MulticlassLogAUC MultilabelLogAUC LogAUC",
    "classification.matthews_corrcoef": (
        "BinaryMatthewsCorrCoef MulticlassMatthewsCorrCoef MultilabelMatthewsCorrCoef MatthewsCorrCoef"
    ),
    "classification.negative_predictive_value": (
        "BinaryNegativePredictiveValue MulticlassNegativePredictiveValue MultilabelNegativePredictiveValue "
        "NegativePredictiveValue"
    ),
    "classification.precision_fixed_recall": (
        "BinaryPrecisionAtFixedRecall MulticlassPrecisionAtFixedRecall MultilabelPrecisionAtFixedRecall "
        "PrecisionAtFixedRecall"
    ),
    "classification.precision_recall": (
        "BinaryPrecision MulticlassPrecision MultilabelPrecision BinaryRecall MulticlassRecall "
        "MultilabelRecall Precision Recall"
    ),
    "classification.precision_recall_curve": (
        "BinaryPrecisionRecallCurve MulticlassPrecisionRecallCurve MultilabelPrecisionRecallCurve "
        "PrecisionRecallCurve"
    ),
    "classification.ranking": (
        "MultilabelCoverageError MultilabelRankingAveragePrecision MultilabelRankingLoss"
    ),
    "classification.recall_fixed_precision": (
        "BinaryRecallAtFixedPrecision MulticlassRecallAtFixedPrecision MultilabelRecallAtFixedPrecision "
        "RecallAtFixedPrecision"
    ),
    "classification.roc": "BinaryROC MulticlassROC MultilabelROC ROC",
    "classification.sensitivity_specificity": (
        "BinarySensitivityAtSpecificity MulticlassSensitivityAtSpecificity "
        "MultilabelSensitivityAtSpecificity SensitivityAtSpecificity"
    ),
    "classification.specificity": "BinarySpecificity MulticlassSpecificity MultilabelSpecificity Specificity",
    "classification.specificity_sensitivity": (
        "BinarySpecificityAtSensitivity MulticlassSpecificityAtSensitivity "
        "MultilabelSpecificityAtSensitivity SpecificityAtSensitivity"
    ),
    "classification.stat_scores": "BinaryStatScores MulticlassStatScores MultilabelStatScores StatScores",
    "clustering": (
        "AdjustedMutualInfoScore AdjustedRandScore CalinskiHarabaszScore ClusterAccuracy CompletenessScore "
        "DaviesBouldinScore DunnIndex FowlkesMallowsIndex HomogeneityScore MutualInfoScore "
        "NormalizedMutualInfoScore RandScore VMeasureScore"
    ),
    "clustering.adjusted_mutual_info_score": "AdjustedMutualInfoScore",
    "clustering.adjusted_rand_score": "AdjustedRandScore",
    "clustering.calinski_harabasz_score": "CalinskiHarabaszScore",
    "clustering.cluster_accuracy": "ClusterAccuracy",
    "clustering.davies_bouldin_score": "DaviesBouldinScore",
    "clustering.dunn_index": "DunnIndex",
    "clustering.fowlkes_mallows_index": "FowlkesMallowsIndex",
    "clustering.homogeneity_completeness_v_measure": "HomogeneityScore CompletenessScore VMeasureScore",
    "clustering.mutual_info_score": "MutualInfoScore",
    "clustering.normalized_mutual_info_score": "NormalizedMutualInfoScore",
    "clustering.rand_score": "RandScore",
    "collections": "MetricCollection",
    "detection": "ModifiedPanopticQuality PanopticQuality",
    "detection.ciou": "CompleteIntersectionOverUnion",
    "detection.diou": "DistanceIntersectionOverUnion",
    "detection.giou": "GeneralizedIntersectionOverUnion",
    "detection.helpers": "CocoBackend",
    "detection.iou": "IntersectionOverUnion",
    "detection.mean_ap": "MeanAveragePrecision",
    "detection.panoptic_qualities": "PanopticQuality ModifiedPanopticQuality",
    "image": (
        "DeepImageStructureAndTextureSimilarity ErrorRelativeGlobalDimensionlessSynthesis "
        "MemorizationInformedFrechetInceptionDistance MultiScaleStructuralSimilarityIndexMeasure "
        "PeakSignalNoiseRatio PeakSignalNoiseRatioWithBlockedEffect QualityWithNoReference "
        "RelativeAverageSpectralError RootMeanSquaredErrorUsingSlidingWindow SpatialCorrelationCoefficient "
        "SpatialDistortionIndex SpectralAngleMapper SpectralDistortionIndex StructuralSimilarityIndexMeasure "
        "TotalVariation UniversalImageQualityIndex VisualInformationFidelity"
    ),
    "image.arniqa": "ARNIQA",
    "image.d_lambda": "SpectralDistortionIndex",
    "image.d_s": "SpatialDistortionIndex",
    "image.dists": "DeepImageStructureAndTextureSimilarity",
    "image.ergas": "ErrorRelativeGlobalDimensionlessSynthesis",
    "image.fid": "NoTrainInceptionV3 FrechetInceptionDistance",
    "image.inception": "InceptionScore",
    "image.kid": "maximum_mean_discrepancy poly_kernel poly_mmd KernelInceptionDistance",
    "image.lpip": "LearnedPerceptualImagePatchSimilarity",
    "image.mifid": "MemorizationInformedFrechetInceptionDistance",
    "image.perceptual_path_length": "PerceptualPathLength",
    "image.psnr": "PeakSignalNoiseRatio",
    "image.psnrb": "PeakSignalNoiseRatioWithBlockedEffect",
    "image.qnr": "QualityWithNoReference",
    "image.rase": "RelativeAverageSpectralError",
    "image.rmse_sw": "RootMeanSquaredErrorUsingSlidingWindow",
    "image.sam": "SpectralAngleMapper",
    "image.scc": "SpatialCorrelationCoefficient",
    "image.ssim": "StructuralSimilarityIndexMeasure MultiScaleStructuralSimilarityIndexMeasure",
    "image.tv": "TotalVariation",
    "image.uqi": "UniversalImageQualityIndex",
    "image.vif": "VisualInformationFidelity",
    "metric": "jit_distributed_available Metric CompositionalMetric",
    "multimodal": "LipVertexError CLIPImageQualityAssessment CLIPScore",
    "multimodal.clip_iqa": "CLIPImageQualityAssessment",
    "multimodal.clip_score": "CLIPScore",
    "multimodal.lve": "LipVertexError",
    "nominal": "CramersV FleissKappa PearsonsContingencyCoefficient TheilsU TschuprowsT",
    "nominal.cramers": "CramersV",
    "nominal.fleiss_kappa": "FleissKappa",
    "nominal.pearson": "PearsonsContingencyCoefficient",
    "nominal.theils_u": "TheilsU",
    "nominal.tschuprows": "TschuprowsT",
    "regression": (
        "ConcordanceCorrCoef ContinuousRankedProbabilityScore CosineSimilarity CriticalSuccessIndex "
        "ExplainedVariance JensenShannonDivergence KLDivergence KendallRankCorrCoef LogCoshError "
        "MeanAbsoluteError MeanAbsolutePercentageError MeanSquaredError MeanSquaredLogError "
        "MinkowskiDistance NormalizedRootMeanSquaredError PearsonCorrCoef R2Score RelativeSquaredError "
        "SpearmanCorrCoef SymmetricMeanAbsolutePercentageError TweedieDevianceScore "
        "WeightedMeanAbsolutePercentageError"
    ),
    "regression.concordance": "ConcordanceCorrCoef",
    "regression.cosine_similarity": "CosineSimilarity",
    "regression.crps": "ContinuousRankedProbabilityScore",
    "regression.csi": "CriticalSuccessIndex",
    "regression.explained_variance": "ExplainedVariance",
    "regression.js_divergence": "JensenShannonDivergence",
    "regression.kendall": "KendallRankCorrCoef",
    "regression.kl_divergence": "KLDivergence",
    "regression.log_cosh": "LogCoshError",
    "regression.log_mse": "MeanSquaredLogError",
    "regression.mae": "MeanAbsoluteError",
    "regression.mape": "MeanAbsolutePercentageError",
    "regression.minkowski": "MinkowskiDistance",
    "regression.mse": "MeanSquaredError",
    "regression.nrmse": "NormalizedRootMeanSquaredError",
    "regression.pearson": "PearsonCorrCoef",
    "regression.r2": "R2Score",
    "regression.rse": "RelativeSquaredError",
    "regression.spearman": "SpearmanCorrCoef",
    "regression.symmetric_mape": "SymmetricMeanAbsolutePercentageError",
    "regression.tweedie_deviance": "TweedieDevianceScore",
    "regression.wmape": "WeightedMeanAbsolutePercentageError",
    "retrieval": (
        "RetrievalAUROC RetrievalFallOut RetrievalHitRate RetrievalMAP RetrievalMRR RetrievalNormalizedDCG "
        "RetrievalPrecision RetrievalPrecisionRecallCurve RetrievalRPrecision RetrievalRecall "
        "RetrievalRecallAtFixedPrecision"
    ),
    "retrieval.auroc": "RetrievalAUROC",
    "retrieval.average_precision": "RetrievalMAP",
    "retrieval.base": "RetrievalMetric",
    "retrieval.fall_out": "RetrievalFallOut",
    "retrieval.hit_rate": "RetrievalHitRate",
    "retrieval.ndcg": "RetrievalNormalizedDCG",
    "retrieval.precision": "RetrievalPrecision",
    "retrieval.precision_recall_curve": "RetrievalPrecisionRecallCurve RetrievalRecallAtFixedPrecision",
    "retrieval.r_precision": "RetrievalRPrecision",
    "retrieval.recall": "RetrievalRecall",
    "retrieval.reciprocal_rank": "RetrievalMRR",
    "segmentation": "DiceScore GeneralizedDiceScore HausdorffDistance MeanIoU",
    "segmentation.dice": "DiceScore",
    "segmentation.generalized_dice": "GeneralizedDiceScore",
    "segmentation.hausdorff_distance": "HausdorffDistance",
    "segmentation.mean_iou": "MeanIoU",
    "shape": "ProcrustesDisparity",
    "shape.procrustes": "ProcrustesDisparity",
    "text": (
        "BLEUScore CHRFScore CharErrorRate EditDistance ExtendedEditDistance MatchErrorRate Perplexity "
        "ROUGEScore SQuAD SacreBLEUScore TranslationEditRate WordErrorRate WordInfoLost WordInfoPreserved "
        "BERTScore InfoLM"
    ),
    "text.bert": "BERTScore",
    "text.bleu": "BLEUScore",
    "text.cer": "CharErrorRate",
    "text.chrf": "CHRFScore",
    "text.edit": "EditDistance",
    "text.eed": "ExtendedEditDistance",
    "text.infolm": "InfoLM",
    "text.mer": "MatchErrorRate",
    "text.perplexity": "Perplexity",
    "text.rouge": "ROUGEScore",
    "text.sacre_bleu": "SacreBLEUScore",
    "text.squad": "SQuAD",
    "text.ter": "TranslationEditRate",
    "text.wer": "WordErrorRate",
    "text.wil": "WordInfoLost",
    "text.wip": "WordInfoPreserved",
    "utilities": (
        "check_forward_full_state_property class_reduce dim_zero_cat dim_zero_max dim_zero_mean dim_zero_min "
        "dim_zero_sum rank_zero_debug rank_zero_info rank_zero_warn reduce"
    ),
    "utilities.checks": "check_forward_full_state_property is_overridden",
    "utilities.compute": "auc interp normalize_logits_if_needed",
    "utilities.data": (
        "dim_zero_cat dim_zero_sum dim_zero_mean dim_zero_max dim_zero_min to_onehot select_topk "
        "to_categorical allclose interp"
    ),
    "utilities.distributed": "reduce class_reduce gather_all_tensors",
    "utilities.enums": (
        "EnumStr DataType AverageMethod MDMCAverageMethod ClassificationTask ClassificationTaskNoBinary "
        "ClassificationTaskNoMultilabel"
    ),
    "utilities.exceptions": "TorchMetricsUserError TorchMetricsUserWarning",
    "utilities.imports": "",
    "utilities.plot": "plot_single_or_multi_val trim_axs plot_confusion_matrix plot_curve",
    "utilities.prints": "rank_zero_only rank_zero_debug rank_zero_info rank_zero_warn",
    "video": "VideoMultiMethodAssessmentFusion",
    "video.vmaf": "VideoMultiMethodAssessmentFusion",
    "wrappers": (
        "BinaryTargetTransformer BootStrapper ClasswiseWrapper FeatureShare LambdaInputTransformer "
        "MetricInputTransformer MetricTracker MinMaxMetric MultioutputWrapper MultitaskWrapper Running"
    ),
    "wrappers.abstract": "WrapperMetric",
    "wrappers.bootstrapping": "BootStrapper",
    "wrappers.classwise": "ClasswiseWrapper",
    "wrappers.feature_share": "NetworkCache FeatureShare",
    "wrappers.minmax": "MinMaxMetric",
    "wrappers.multioutput": "MultioutputWrapper",
    "wrappers.multitask": "MultitaskWrapper",
    "wrappers.running": "Running",
    "wrappers.tracker": "MetricTracker",
    "wrappers.transformations": "MetricInputTransformer LambdaInputTransformer BinaryTargetTransformer",
}
