# Memory-access tracing's Compute Sanitizer part in libhetrace-cuda.so
# (included by src/cuda/CMakeLists.txt): the device patch (cuda_patches.cu)
# compiled by nvcc into hetrace-memtrace-patches.fatbin beside the library,
# and, where the toolkit has the Compute Sanitizer headers, a check of
# sanitizer_api.h's declarations against them.
find_path(HT_SANITIZER_INCLUDE sanitizer.h HINTS ${HT_CUDA_HINTS}
	PATH_SUFFIXES compute-sanitizer/include include)
if(HT_SANITIZER_INCLUDE)
	target_include_directories(hetrace-cuda PRIVATE ${HT_SANITIZER_INCLUDE})
	target_compile_definitions(hetrace-cuda PRIVATE HT_HAVE_SANITIZER_H)
endif()
find_program(HT_MT_NVCC nvcc HINTS ${HT_CUDA_HINTS} PATH_SUFFIXES bin)
if(HT_MT_NVCC)
	set(ht_mt_patches ${CMAKE_LIBRARY_OUTPUT_DIRECTORY}/hetrace-memtrace-patches.fatbin)
	set(ht_mt_gencode)
	foreach(arch 75 80 86 89 90 100 120)
		list(APPEND ht_mt_gencode -gencode arch=compute_${arch},code=sm_${arch})
	endforeach()
	add_custom_command(OUTPUT ${ht_mt_patches}
		COMMAND ${HT_MT_NVCC} --fatbin --keep-device-functions
			-Xptxas --compile-as-tools-patch -I${CMAKE_SOURCE_DIR}/src ${ht_mt_gencode}
			-o ${ht_mt_patches} ${CMAKE_SOURCE_DIR}/src/memtrace/cuda_patches.cu
		DEPENDS ${CMAKE_SOURCE_DIR}/src/memtrace/cuda_patches.cu
			${CMAKE_SOURCE_DIR}/src/memtrace/cuda_producer.h
			${CMAKE_SOURCE_DIR}/src/memtrace/layout.h
		VERBATIM COMMENT "nvcc cuda_patches.cu (memory-access patches)")
	add_custom_target(hetrace_memtrace_patches ALL DEPENDS ${ht_mt_patches})
else()
	message(STATUS "nvcc not found: CUDA memory-access patches are not built")
endif()
