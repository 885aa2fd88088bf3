"""Evaluation: runs x qrels -> per-query measure values, exactly as trec_eval computes them."""

from pairedframe.evaluation.judgment_sets import JudgmentSetsEvaluation, evaluate_judgment_sets
from pairedframe.evaluation.pipeline import evaluate
from pairedframe.evaluation.result import TIE_RULE, Evaluation, EvaluationSettings

__all__ = ["TIE_RULE", "Evaluation", "JudgmentSetsEvaluation", "EvaluationSettings", "evaluate", "evaluate_judgment_sets"]
