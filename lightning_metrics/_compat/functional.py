"""torchmetrics 1.9's functional module paths (under ``functional``) and their public names (data).

The twin of :mod:`lightning_metrics._compat.modular`: ``""`` is ``torchmetrics.functional``
itself, ``"classification.accuracy"`` is ``torchmetrics.functional.classification.accuracy``.
"""

PATHS: dict[str, str] = {
    "": (
        "accuracy auroc average_precision binary_eer bleu_score calibration_error char_error_rate chrf_score "
        "cohen_kappa concordance_corrcoef confusion_matrix cosine_similarity cramers_v cramers_v_matrix "
        "critical_success_index eer error_relative_global_dimensionless_synthesis exact_match "
        "explained_variance extended_edit_distance f1_score fbeta_score fleiss_kappa hamming_distance "
        "hinge_loss image_gradients jaccard_index kendall_rank_corrcoef kl_divergence lip_vertex_error "
        "log_cosh_error logauc match_error_rate matthews_corrcoef mean_absolute_error "
        "mean_absolute_percentage_error mean_squared_error mean_squared_log_error minkowski_distance "
        "multiclass_eer multilabel_eer multiscale_structural_similarity_index_measure "
        "negative_predictive_value normalized_root_mean_squared_error pairwise_cosine_similarity "
        "pairwise_euclidean_distance pairwise_linear_similarity pairwise_manhattan_distance "
        "pairwise_minkowski_distance panoptic_quality peak_signal_noise_ratio pearson_corrcoef "
        "pearsons_contingency_coefficient pearsons_contingency_coefficient_matrix "
        "permutation_invariant_training perplexity pit_permutate precision precision_at_fixed_recall "
        "precision_recall_curve r2_score recall recall_at_fixed_precision relative_average_spectral_error "
        "relative_squared_error retrieval_average_precision retrieval_fall_out retrieval_hit_rate "
        "retrieval_normalized_dcg retrieval_precision retrieval_precision_recall_curve retrieval_r_precision "
        "retrieval_recall retrieval_reciprocal_rank roc root_mean_squared_error_using_sliding_window "
        "rouge_score sacre_bleu_score scale_invariant_signal_distortion_ratio "
        "scale_invariant_signal_noise_ratio sensitivity_at_specificity signal_distortion_ratio "
        "signal_noise_ratio spearman_corrcoef specificity specificity_at_sensitivity spectral_angle_mapper "
        "spectral_distortion_index squad stat_scores structural_similarity_index_measure "
        "symmetric_mean_absolute_percentage_error theils_u theils_u_matrix total_variation "
        "translation_edit_rate tschuprows_t tschuprows_t_matrix tweedie_deviance_score "
        "universal_image_quality_index weighted_mean_absolute_percentage_error word_error_rate "
        "word_information_lost word_information_preserved"
    ),
    "audio": (
        "complex_scale_invariant_signal_noise_ratio permutation_invariant_training pit_permutate "
        "scale_invariant_signal_distortion_ratio scale_invariant_signal_noise_ratio signal_distortion_ratio "
        "signal_noise_ratio source_aggregated_signal_distortion_ratio "
        "perceptual_evaluation_speech_quality short_time_objective_intelligibility "
        "speech_reverberation_modulation_energy_ratio deep_noise_suppression_mean_opinion_score "
        "non_intrusive_speech_quality_assessment"
    ),
    "audio.dnsmos": "InferenceSession deep_noise_suppression_mean_opinion_score",
    "audio.nisqa": "non_intrusive_speech_quality_assessment",
    "audio.pesq": "perceptual_evaluation_speech_quality",
    "audio.pit": "permutation_invariant_training pit_permutate",
    "audio.sdr": (
        "signal_distortion_ratio scale_invariant_signal_distortion_ratio "
        "source_aggregated_signal_distortion_ratio"
    ),
    "audio.snr": (
        "signal_noise_ratio scale_invariant_signal_noise_ratio complex_scale_invariant_signal_noise_ratio"
    ),
    "audio.srmr": "speech_reverberation_modulation_energy_ratio",
    "audio.stoi": "short_time_objective_intelligibility",
    "classification": (
        "accuracy auroc average_precision binary_accuracy binary_auroc binary_average_precision "
        "binary_calibration_error binary_cohen_kappa binary_confusion_matrix binary_eer binary_f1_score "
        "binary_fairness binary_fbeta_score binary_groups_stat_rates binary_hamming_distance "
        "binary_hinge_loss binary_jaccard_index binary_logauc binary_matthews_corrcoef "
        "binary_negative_predictive_value binary_precision binary_precision_at_fixed_recall "
        "binary_precision_recall_curve binary_recall binary_recall_at_fixed_precision binary_roc "
        "binary_sensitivity_at_specificity binary_specificity binary_specificity_at_sensitivity "
        "binary_stat_scores calibration_error cohen_kappa confusion_matrix demographic_parity eer "
        "equal_opportunity exact_match f1_score fbeta_score hamming_distance hinge_loss jaccard_index logauc "
        "matthews_corrcoef multiclass_accuracy multiclass_auroc multiclass_average_precision "
        "multiclass_calibration_error multiclass_cohen_kappa multiclass_confusion_matrix multiclass_eer "
        "multiclass_exact_match multiclass_f1_score multiclass_fbeta_score multiclass_hamming_distance "
        "multiclass_hinge_loss multiclass_jaccard_index multiclass_logauc multiclass_matthews_corrcoef "
        "multiclass_negative_predictive_value multiclass_precision multiclass_precision_at_fixed_recall "
        "multiclass_precision_recall_curve multiclass_recall multiclass_recall_at_fixed_precision "
        "multiclass_roc multiclass_sensitivity_at_specificity multiclass_specificity "
        "multiclass_specificity_at_sensitivity multiclass_stat_scores multilabel_accuracy multilabel_auroc "
        "multilabel_average_precision multilabel_confusion_matrix multilabel_coverage_error multilabel_eer "
        "multilabel_exact_match multilabel_f1_score multilabel_fbeta_score multilabel_hamming_distance "
        "multilabel_jaccard_index multilabel_logauc multilabel_matthews_corrcoef "
        "multilabel_negative_predictive_value multilabel_precision multilabel_precision_at_fixed_recall "
        "multilabel_precision_recall_curve multilabel_ranking_average_precision multilabel_ranking_loss "
        "multilabel_recall multilabel_recall_at_fixed_precision multilabel_roc "
        "multilabel_sensitivity_at_specificity multilabel_specificity multilabel_specificity_at_sensitivity "
        "multilabel_stat_scores negative_predictive_value precision precision_at_fixed_recall "
        "precision_recall_curve recall recall_at_fixed_precision roc sensitivity_at_specificity specificity "
        "specificity_at_sensitivity stat_scores"
    ),
    "classification.accuracy": "binary_accuracy multiclass_accuracy multilabel_accuracy accuracy",
    "classification.auroc": "binary_auroc multiclass_auroc multilabel_auroc auroc",
    "classification.average_precision": (
        "binary_average_precision multiclass_average_precision multilabel_average_precision "
        "average_precision"
    ),
    "classification.calibration_error": (
        "binary_calibration_error multiclass_calibration_error calibration_error"
    ),
    "classification.cohen_kappa": "binary_cohen_kappa multiclass_cohen_kappa cohen_kappa",
    "classification.confusion_matrix": (
        "binary_confusion_matrix multiclass_confusion_matrix multilabel_confusion_matrix confusion_matrix"
    ),
    "classification.eer": "binary_eer multiclass_eer multilabel_eer eer",
    "classification.exact_match": "multiclass_exact_match multilabel_exact_match exact_match",
    "classification.f_beta": (
        "binary_fbeta_score multiclass_fbeta_score multilabel_fbeta_score binary_f1_score "
        "multiclass_f1_score multilabel_f1_score fbeta_score f1_score"
    ),
    "classification.group_fairness": (
        "binary_groups_stat_rates demographic_parity equal_opportunity binary_fairness"
    ),
    "classification.hamming": (
        "binary_hamming_distance multiclass_hamming_distance multilabel_hamming_distance hamming_distance"
    ),
    "classification.hinge": "binary_hinge_loss multiclass_hinge_loss hinge_loss",
    "classification.jaccard": (
        "binary_jaccard_index multiclass_jaccard_index multilabel_jaccard_index jaccard_index"
    ),
    "classification.logauc": "binary_logauc multiclass_logauc multilabel_logauc logauc",
    "classification.matthews_corrcoef": (
        "binary_matthews_corrcoef multiclass_matthews_corrcoef multilabel_matthews_corrcoef "
        "matthews_corrcoef"
    ),
    "classification.negative_predictive_value": (
        "binary_negative_predictive_value multiclass_negative_predictive_value "
        "multilabel_negative_predictive_value negative_predictive_value"
    ),
    "classification.precision_fixed_recall": (
        "binary_precision_at_fixed_recall multiclass_precision_at_fixed_recall "
        "multilabel_precision_at_fixed_recall precision_at_fixed_recall"
    ),
    "classification.precision_recall": (
        "binary_precision multiclass_precision multilabel_precision binary_recall multiclass_recall "
        "multilabel_recall precision recall"
    ),
    "classification.precision_recall_curve": (
        "binary_precision_recall_curve multiclass_precision_recall_curve multilabel_precision_recall_curve "
        "precision_recall_curve"
    ),
    "classification.ranking": (
        "multilabel_coverage_error multilabel_ranking_average_precision multilabel_ranking_loss"
    ),
    "classification.recall_fixed_precision": (
        "binary_recall_at_fixed_precision multiclass_recall_at_fixed_precision "
        "multilabel_recall_at_fixed_precision recall_at_fixed_precision"
    ),
    "classification.roc": "binary_roc multiclass_roc multilabel_roc roc",
    "classification.sensitivity_specificity": (
        "binary_sensitivity_at_specificity multiclass_sensitivity_at_specificity "
        "multilabel_sensitivity_at_specificity sensitivity_at_specificity"
    ),
    "classification.specificity": (
        "binary_specificity multiclass_specificity multilabel_specificity specificity"
    ),
    "classification.specificity_sensitivity": (
        "binary_specificity_at_sensitivity multiclass_specificity_at_sensitivity "
        "multilabel_specificity_at_sensitivity specicity_at_sensitivity specificity_at_sensitivity"
    ),
    "classification.stat_scores": (
        "binary_stat_scores multiclass_stat_scores multilabel_stat_scores stat_scores"
    ),
    "clustering": (
        "adjusted_mutual_info_score adjusted_rand_score calinski_harabasz_score cluster_accuracy "
        "completeness_score davies_bouldin_score dunn_index fowlkes_mallows_index homogeneity_score "
        "mutual_info_score normalized_mutual_info_score rand_score v_measure_score"
    ),
    "clustering.adjusted_mutual_info_score": "adjusted_mutual_info_score expected_mutual_info_score",
    "clustering.adjusted_rand_score": "adjusted_rand_score",
    "clustering.calinski_harabasz_score": "calinski_harabasz_score",
    "clustering.cluster_accuracy": "cluster_accuracy",
    "clustering.davies_bouldin_score": "davies_bouldin_score",
    "clustering.dunn_index": "dunn_index",
    "clustering.fowlkes_mallows_index": "fowlkes_mallows_index",
    "clustering.homogeneity_completeness_v_measure": "homogeneity_score completeness_score v_measure_score",
    "clustering.mutual_info_score": "mutual_info_score",
    "clustering.normalized_mutual_info_score": "normalized_mutual_info_score",
    "clustering.rand_score": "rand_score",
    "clustering.utils": (
        "is_nonnegative calculate_entropy calculate_generalized_mean calculate_contingency_matrix "
        "check_cluster_labels calculate_pair_cluster_confusion_matrix"
    ),
    "detection": "modified_panoptic_quality panoptic_quality",
    "detection.ciou": "complete_intersection_over_union",
    "detection.diou": "distance_intersection_over_union",
    "detection.giou": "generalized_intersection_over_union",
    "detection.iou": "intersection_over_union",
    "detection.map": "mean_average_precision",
    "detection.panoptic_qualities": "panoptic_quality modified_panoptic_quality",
    "image": (
        "arniqa deep_image_structure_and_texture_similarity error_relative_global_dimensionless_synthesis "
        "image_gradients learned_perceptual_image_patch_similarity "
        "multiscale_structural_similarity_index_measure peak_signal_noise_ratio "
        "peak_signal_noise_ratio_with_blocked_effect perceptual_path_length quality_with_no_reference "
        "relative_average_spectral_error root_mean_squared_error_using_sliding_window "
        "spatial_correlation_coefficient spatial_distortion_index spectral_angle_mapper "
        "spectral_distortion_index structural_similarity_index_measure total_variation "
        "universal_image_quality_index visual_information_fidelity"
    ),
    "image.arniqa": "arniqa",
    "image.d_lambda": "spectral_distortion_index",
    "image.d_s": "spatial_distortion_index",
    "image.dists": "L2pooling DISTSNetwork deep_image_structure_and_texture_similarity",
    "image.ergas": "error_relative_global_dimensionless_synthesis",
    "image.gradients": "image_gradients",
    "image.lpips": (
        "SqueezeNet Alexnet Vgg16 ScalingLayer NetLinLayer learned_perceptual_image_patch_similarity"
    ),
    "image.perceptual_path_length": "GeneratorType perceptual_path_length",
    "image.psnr": "peak_signal_noise_ratio",
    "image.psnrb": "peak_signal_noise_ratio_with_blocked_effect",
    "image.qnr": "quality_with_no_reference",
    "image.rase": "relative_average_spectral_error",
    "image.rmse_sw": "root_mean_squared_error_using_sliding_window",
    "image.sam": "spectral_angle_mapper",
    "image.scc": "spatial_correlation_coefficient",
    "image.ssim": "structural_similarity_index_measure multiscale_structural_similarity_index_measure",
    "image.tv": "total_variation",
    "image.uqi": "universal_image_quality_index",
    "image.utils": "",
    "image.vif": "visual_information_fidelity",
    "multimodal": "lip_vertex_error clip_image_quality_assessment clip_score",
    "multimodal.clip_iqa": "clip_image_quality_assessment",
    "multimodal.clip_score": "JinaProcessorWrapper clip_score",
    "multimodal.lve": "lip_vertex_error",
    "nominal": (
        "cramers_v cramers_v_matrix fleiss_kappa pearsons_contingency_coefficient "
        "pearsons_contingency_coefficient_matrix theils_u theils_u_matrix tschuprows_t tschuprows_t_matrix"
    ),
    "nominal.cramers": "cramers_v cramers_v_matrix",
    "nominal.fleiss_kappa": "fleiss_kappa",
    "nominal.pearson": "pearsons_contingency_coefficient pearsons_contingency_coefficient_matrix",
    "nominal.theils_u": "theils_u theils_u_matrix",
    "nominal.tschuprows": "tschuprows_t tschuprows_t_matrix",
    "nominal.utils": "",
    "pairwise": (
        "pairwise_cosine_similarity pairwise_euclidean_distance pairwise_linear_similarity "
        "pairwise_manhattan_distance pairwise_minkowski_distance"
    ),
    "pairwise.cosine": "pairwise_cosine_similarity",
    "pairwise.euclidean": "pairwise_euclidean_distance",
    "pairwise.helpers": "",
    "pairwise.linear": "pairwise_linear_similarity",
    "pairwise.manhattan": "pairwise_manhattan_distance",
    "pairwise.minkowski": "pairwise_minkowski_distance",
    "regression": (
        "concordance_corrcoef continuous_ranked_probability_score cosine_similarity critical_success_index "
        "explained_variance jensen_shannon_divergence kendall_rank_corrcoef kl_divergence log_cosh_error "
        "mean_absolute_error mean_absolute_percentage_error mean_squared_error mean_squared_log_error "
        "minkowski_distance normalized_root_mean_squared_error pearson_corrcoef r2_score "
        "relative_squared_error spearman_corrcoef symmetric_mean_absolute_percentage_error "
        "tweedie_deviance_score weighted_mean_absolute_percentage_error"
    ),
    "regression.concordance": "concordance_corrcoef",
    "regression.cosine_similarity": "cosine_similarity",
    "regression.crps": "continuous_ranked_probability_score",
    "regression.csi": "critical_success_index",
    "regression.explained_variance": "explained_variance",
    "regression.js_divergence": "jensen_shannon_divergence",
    "regression.kendall": "kendall_rank_corrcoef",
    "regression.kl_divergence": "kl_divergence",
    "regression.log_cosh": "log_cosh_error",
    "regression.log_mse": "mean_squared_log_error",
    "regression.mae": "mean_absolute_error",
    "regression.mape": "mean_absolute_percentage_error",
    "regression.minkowski": "minkowski_distance",
    "regression.mse": "mean_squared_error",
    "regression.nrmse": "normalized_root_mean_squared_error",
    "regression.pearson": "pearson_corrcoef",
    "regression.r2": "r2_score",
    "regression.rse": "relative_squared_error",
    "regression.spearman": "spearman_corrcoef",
    "regression.symmetric_mape": "symmetric_mean_absolute_percentage_error",
    "regression.tweedie_deviance": "tweedie_deviance_score",
    "regression.utils": "",
    "regression.wmape": "weighted_mean_absolute_percentage_error",
    "retrieval": (
        "retrieval_auroc retrieval_average_precision retrieval_fall_out retrieval_hit_rate "
        "retrieval_normalized_dcg retrieval_precision retrieval_precision_recall_curve retrieval_r_precision "
        "retrieval_recall retrieval_reciprocal_rank"
    ),
    "retrieval.auroc": "retrieval_auroc",
    "retrieval.average_precision": "retrieval_average_precision",
    "retrieval.fall_out": "retrieval_fall_out",
    "retrieval.hit_rate": "retrieval_hit_rate",
    "retrieval.ndcg": "retrieval_normalized_dcg",
    "retrieval.precision": "retrieval_precision",
    "retrieval.precision_recall_curve": "retrieval_precision_recall_curve",
    "retrieval.r_precision": "retrieval_r_precision",
    "retrieval.recall": "retrieval_recall",
    "retrieval.reciprocal_rank": "retrieval_reciprocal_rank",
    "segmentation": "dice_score generalized_dice_score hausdorff_distance mean_iou",
    "segmentation.dice": "dice_score",
    "segmentation.generalized_dice": "generalized_dice_score",
    "segmentation.hausdorff_distance": "hausdorff_distance",
    "segmentation.mean_iou": "mean_iou",
    "segmentation.utils": (
        "check_if_binarized generate_binary_structure binary_erosion distance_transform mask_edges "
        "surface_distance edge_surface_distance table_contour_length"
    ),
    "shape": "procrustes_disparity",
    "shape.procrustes": "procrustes_disparity",
    "text": (
        "bleu_score char_error_rate chrf_score edit_distance extended_edit_distance match_error_rate "
        "perplexity rouge_score sacre_bleu_score squad translation_edit_rate word_error_rate "
        "word_information_lost word_information_preserved bert_score infolm"
    ),
    "text.bert": "bert_score",
    "text.bleu": "bleu_score",
    "text.cer": "char_error_rate",
    "text.chrf": "chrf_score",
    "text.edit": "edit_distance",
    "text.eed": "extended_edit_distance",
    "text.helper": "",
    "text.helper_embedding_metric": "TextDataset TokenizedDataset",
    "text.infolm": "infolm",
    "text.mer": "match_error_rate",
    "text.perplexity": "perplexity",
    "text.rouge": "rouge_score",
    "text.sacre_bleu": "sacre_bleu_score",
    "text.squad": "squad",
    "text.ter": "translation_edit_rate",
    "text.wer": "word_error_rate",
    "text.wil": "word_information_lost",
    "text.wip": "word_information_preserved",
    "video": "video_multi_method_assessment_fusion",
    "video.vmaf": "calculate_luma video_multi_method_assessment_fusion",
}
