"""FLOPs formulas of metrics.md §7.1 against products written out by hand."""

import math

import pytest

from timelineview.analysis.kernels.flops_of_shapes.formulas import task_flops
from timelineview.analysis.kernels.op_type_names import op_type_of_name
from timelineview.analysis.kernels.peaks.chip_peaks import chip_peak


@pytest.mark.parametrize("shapes", ["8,64,32;8,32,16", "8,32,64;8,32,16", "8,64,32;8,16,32", "8,32,64;8,16,32"])
def test_batched_matrix_product_any_transposition(shapes):
    # b=8, m=64, k=32, n=16 whichever operand is stored transposed
    assert task_flops("BatchMatMulV2", shapes) == 2 * 8 * 64 * 16 * 32


def test_matrix_product_with_bias_and_broadcast_batch():
    assert task_flops("MatMulV2", "32,9216;4096,9216;4096") == 2 * 32 * 4096 * 9216
    assert task_flops("BatchMatMul", "4,2,10,6;6,7") == 2 * 8 * 10 * 7 * 6


def test_the_output_shape_settles_which_operand_is_transposed():
    # A [32, 4096], B [32, 4096]: A·Bᵀ (k = 4096, output 32 x 32) or Aᵀ·B (k = 32, output 4096 x 4096)
    assert task_flops("MatMulV2", "32,4096;32,4096", output_shapes="4096,4096") == 2 * 4096 * 4096 * 32
    assert task_flops("MatMulV2", "32,4096;32,4096", output_shapes="32,32") == 2 * 32 * 32 * 4096


def test_matrix_product_whose_operands_do_not_fit_counts_zero():
    assert task_flops("MatMul", "3,5;7,11") == 0.0


def test_convolution_nchw_and_cube_layouts():
    # NCHW: N=2, C_in=3, 3x3 kernel, C_out=16, output 10x10
    assert task_flops("Conv2D", "2,3,12,12;16,3,3,3;16", "NCHW;NCHW;ND", "2,16,10,10") == 2 * 2 * 16 * 100 * 3 * 9
    # NC1HWC0 input, FRACTAL_Z weight (C1*Kh*Kw=121, C0=8), output NC1HWC0 (C_out = 8*8)
    expected = 2 * 32 * 64 * 55 * 55 * (121 * 8)
    assert task_flops("Conv2D", "32,1,224,224,8;121,4,16,8;64", "NC1HWC0;FRACTAL_Z;NCHW", "32,8,55,55,8") == expected


def test_flash_attention_forward_and_backward():
    # BSH: B=2, S=128, H=N*D=512
    forward = 4 * 2 * 128 * 128 * 512
    assert task_flops("FlashAttentionScore", "2,128,512;2,128,512;2,128,512") == forward
    assert task_flops("FlashAttentionScoreGrad", "2,128,512;2,128,512;2,128,512") == 2.5 * forward
    # BNSD: B=2, N=8, S_q=128, S_kv=256, D=64
    assert task_flops("FlashAttentionScore", "2,8,128,64;2,8,256,64") == 4 * 2 * 8 * 128 * 256 * 64


def test_other_types_are_not_counted():
    assert math.isnan(task_flops("TransData", "32,3,224,224"))
    assert math.isnan(task_flops("Conv2DBackpropFilter", "32,1,224,224,8;4;32,8,55,55,8"))


@pytest.mark.parametrize(("name", "op_type"), [("trans_TransData_0", "TransData"),
                                               ("Default/net/MatMul-op12", "MatMul"),
                                               ("aclnnMatmul_MatMulCommon_MatMulV2", "MatMulV2"), ("Add", "Add"),
                                               ("Conv2DBackpropFilter10", "Conv2DBackpropFilter"), ("TopKV2", "TopKV2"),
                                               ("MatMulV21", "MatMulV2"),
                                               ("42", "42")])
def test_op_type_of_name(name, op_type):
    assert op_type_of_name(name) == op_type


def test_chip_peaks():
    assert chip_peak("Ascend910B").tflops == 320.0
    assert chip_peak("Ascend 910B2").tflops == 376.0  # spaces do not matter
    assert chip_peak("Ascend910B2C").tflops == 376.0
    assert chip_peak("Ascend910ProB").tflops == 256.0
    assert chip_peak("Ascend910B9").tflops == 320.0  # an unlisted part: the longest known prefix
    assert chip_peak("") is None and chip_peak("GPU") is None
